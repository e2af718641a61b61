import Synchronization

/// What the branches of one tree share for their properties: the generation every set moves on, and
/// the lock that orders sets and the notifications of their observers.
///
/// Made with the first ``BranchProperties`` of the tree (the root's), and kept by every branch's.
/// A test copy of a tree (`TestFeatures(root)`) has its own root branch, hence its own.
@usableFromInline
final class PropertyTree: @unchecked Sendable {
  // Sendable: `generation` is atomic; everything else is in `state`, under its lock.
  /// The tree's property generation, moved on by every set that changes something; 1 at first, so
  /// that a branch's first snapshot (valid at 0) is never current.
  @usableFromInline let generation = Atomic<UInt>(1)
  /// Taken by every set, and by every observer as it starts: sets and what observers see of them
  /// are in one order.
  private let state = Lock<State>.make(State())

  private struct State {
    /// The branches with observers, by their properties' identity; dead ones are dropped as they
    /// are met.
    var observing: [ObjectIdentifier: WeakProperties] = [:]
  }

  private struct WeakProperties {
    weak var properties: BranchProperties?
  }

  init() {}

  /// Sets `box` as the value of the property keyed `key` on the branch of `properties`, unless it
  /// already has an equal one there, and tells every observer whose value it changes.
  ///
  /// - Parameter isEqual: Whether the value set there so far equals `box`'s.
  func set(
    _ box: AnyPropertyBox, for key: UInt, on properties: BranchProperties,
    unlessEqual isEqual: (AnyPropertyBox) -> Bool
  ) {
    let released = state.withLock { state -> [AnyObject] in
      guard properties.setOwn(box, for: key, unlessEqual: isEqual) else { return [] }
      generation.wrappingAdd(1, ordering: .acquiringAndReleasing)
      return notify(key, &state)
    }
    // Outside the lock: the last reference to a branch may be among them, and its release may run
    // deinitialisers that finish observers.
    withExtendedLifetime(released) {}
  }

  /// Moves the generation on and tells the observers of the property keyed `key` whose value
  /// changed: a live registry value of the property was replaced.
  func registryValueChanged(_ key: UInt) {
    let released = state.withLock { state -> [AnyObject] in
      generation.wrappingAdd(1, ordering: .acquiringAndReleasing)
      return notify(key, &state)
    }
    withExtendedLifetime(released) {}
  }

  /// Starts `observer` on `branch` (whose properties are `properties`), giving it the current value
  /// first.
  func start(_ observer: PropertyObserver, on branch: Branch, properties: BranchProperties) {
    state.withLock { state in
      state.observing[ObjectIdentifier(properties)] = WeakProperties(properties: properties)
      let box = BranchProperties.source(of: observer.key, in: branch) ?? observer.defaultBox
      observer.last = box
      properties.add(observer)
      observer.yield(box)
    }
  }

  /// Gives the observers of the property keyed `key` their new value, where it changed: a new box
  /// whose value is equal to the last one given (for an `Equatable` value) is not given again. Call
  /// with the lock held.
  ///
  /// - Returns: What was held for the notifications, to release once the lock is not.
  private func notify(_ key: UInt, _ state: inout State) -> [AnyObject] {
    var held: [AnyObject] = []
    for (id, entry) in state.observing {
      guard let properties = entry.properties else {
        state.observing[id] = nil
        continue
      }
      held.append(properties)
      let observers = properties.observers(of: key)
      // A branch being released has no holder left: its observers finish with it.
      guard !observers.isEmpty, let branch = properties.anchor.branch else { continue }
      held.append(branch)
      if let tether = branch.tether {
        guard let hold = tether.holdTethers() else { continue }
        held.append(hold)
      }
      let source = BranchProperties.source(of: key, in: branch)
      for observer in observers {
        let box = source ?? observer.defaultBox
        guard box !== observer.last else { continue }
        // Another set now decides the value, but the branch sees a change only if the value differs.
        let unchanged = observer.last?.hasValue(equalTo: box) ?? false
        observer.last = box
        if !unchanged { observer.yield(box) }
      }
    }
    return held
  }
}

/// One `observe(_:)` stream: the property it follows, and the last value it was given.
final class PropertyObserver: @unchecked Sendable {
  // Sendable: `last` is read and written only under the tree's lock; the rest is immutable.
  let key: UInt
  /// The box of the property's default value, for when nothing on the path sets it.
  let defaultBox: AnyPropertyBox
  /// Gives the stream the value of a box of the property.
  let yield: @Sendable (AnyPropertyBox) -> Void
  /// Ends the stream.
  let finish: @Sendable () -> Void
  /// The box that decides the branch's value now; the stream was last given its value, or one equal
  /// to it.
  var last: AnyPropertyBox?

  init<P: FeaturesProperty>(_ property: P.Type, continuation: AsyncStream<P.Value>.Continuation) {
    key = FeatureTable.key(property)
    defaultBox = PropertyBox(P.defaultValue, source: .default)
    yield = { box in continuation.yield(UncountedReference.cast(box, to: PropertyBox<P.Value>.self).value) }
    finish = { continuation.finish() }
  }
}
