/// A registry's value of one property: the box made once when the registry is built, or a cell
/// whose box an integration replaces while the tree lives (``LiveRegistryValue``).
package enum RegistryPropertyValue: Sendable {
  /// `registry.set(_:to:)`: one box, for the life of the definition.
  case fixed(AnyPropertyBox)
  /// A value that changes: the cell's current box, if it has a value.
  case live(LivePropertyCell)

  /// The box in effect; `nil` when a live value has none, so lookup goes on up the tree.
  ///
  /// - Parameter tree: The tree of the branch that reads it, told of the cell's changes from then on.
  func box(readBy tree: PropertyTree?) -> AnyPropertyBox? {
    switch self {
    case .fixed(let box): box
    case .live(let cell): cell.box(readBy: tree)
    }
  }
}

/// The state of a ``LiveRegistryValue``: its current box, and the trees whose branches read it.
///
/// The lock is a leaf: no other lock is taken while it is held. An update replaces the box under it,
/// then, outside it, tells each tree, which moves the tree's generation on and gives its observers
/// the new value under the tree's own lock; a read under that lock takes this one to find the box.
package final class LivePropertyCell: Sendable {
  /// The property's key (``FeatureTable/key(_:)``).
  let key: UInt
  private let state: Lock<State>

  private struct State {
    /// Makes the box of the current value, given where it comes from; `nil`: no value.
    var make: (@Sendable (PropertySource) -> AnyPropertyBox)?
    /// Where the value comes from, once the registry's definition is built.
    var source: PropertySource?
    /// The box of the current value, once `source` is known.
    var box: AnyPropertyBox?
    /// The trees whose branches read the value, by identity; dead ones are dropped as they are met.
    var trees: [ObjectIdentifier: WeakTree] = [:]
  }

  private struct WeakTree {
    weak var tree: PropertyTree?
  }

  init(key: UInt, make: (@Sendable (PropertySource) -> AnyPropertyBox)?) {
    self.key = key
    state = Lock.make(State(make: make))
  }

  /// Binds the cell to its registry's place, as the registry's definition is built.
  func bind(to source: PropertySource) -> RegistryPropertyValue {
    state.withLock { state in
      state.source = source
      state.box = state.make?(source)
    }
    return .live(self)
  }

  /// The current box, noting `tree` as one to tell of changes.
  func box(readBy tree: PropertyTree?) -> AnyPropertyBox? {
    state.withLock { state in
      if let tree { state.trees[ObjectIdentifier(tree)] = WeakTree(tree: tree) }
      return state.box
    }
  }

  /// Replaces the value, and tells every tree that read it.
  func update(_ make: (@Sendable (PropertySource) -> AnyPropertyBox)?) {
    let trees = state.withLock { state -> [PropertyTree] in
      state.make = make
      state.box = state.source.flatMap { source in make?(source) }
      var alive: [PropertyTree] = []
      for (id, entry) in state.trees {
        if let tree = entry.tree { alive.append(tree) } else { state.trees[id] = nil }
      }
      return alive
    }
    for tree in trees { tree.registryValueChanged(key) }
  }
}
