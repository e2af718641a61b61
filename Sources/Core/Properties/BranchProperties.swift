import Synchronization

/// The properties of one branch: the values set on it, the snapshot its reads look up, and its
/// observers. Made the first time anything reads, sets or observes a property through the branch.
///
/// A read (``cached(_:)``, inlined into the caller) is three acquiring loads and a probe: the
/// current ``PropertySnapshot``, its `validAt`, and the tree's generation, then the value from its
/// box. No lock, no reference count but the value's own copy. When the generation moved on (a set,
/// anywhere in the tree), the read takes ``value(_:in:)``: under this branch's lock it resolves
/// again every property the snapshot holds, walking up the tree, and either moves the snapshot's
/// `validAt` forward, when nothing it holds changed, or publishes a new snapshot.
///
/// A snapshot that was replaced cannot be freed while the branch lives: a read on another thread
/// may still be copying a value from it, and reads take no lock or reference that would say so. So
/// every snapshot is kept until the branch is released (`State.snapshots`): a branch keeps one
/// snapshot per change of a value it reads, and the values in them.
@usableFromInline
final class BranchProperties: @unchecked Sendable {
  // Sendable: the snapshot word and the generation are atomic; everything else that changes is in
  // `state`, under its lock.
  /// The current snapshot, unretained: `state.snapshots` keeps it.
  @usableFromInline let snapshot: AtomicReference<PropertySnapshot>
  @usableFromInline let tree: PropertyTree
  /// The branch's anchor: it finds the branch while the branch lives, without keeping it alive.
  let anchor: BranchAnchor
  private let state: Lock<State>

  private struct State {
    /// The values set on this branch, by property.
    var own: [UInt: AnyPropertyBox] = [:]
    /// The box of the default value of each property read here.
    var defaults: [UInt: AnyPropertyBox] = [:]
    /// Every snapshot published, the current one last.
    var snapshots: [PropertySnapshot]
    /// The streams of `observe(_:)` on this branch.
    var observers: [PropertyObserver] = []
  }

  init(tree: PropertyTree, anchor: BranchAnchor) {
    self.tree = tree
    self.anchor = anchor
    let first = PropertySnapshot([], validAt: 0)
    snapshot = AtomicReference(first)
    state = Lock.make(State(snapshots: [first]))
  }

  deinit {
    // The branch is gone: its observers' streams end.
    finishObservers()
  }

  /// Ends the streams of this branch's observers: when the branch goes, or closes.
  func finishObservers() {
    for observer in state.withLock({ $0.observers }) { observer.finish() }
  }

  /// The value of `property` on this branch if the current snapshot holds it: no lock.
  @inlinable @inline(__always)
  func cached<P: FeaturesProperty>(_ property: P.Type) -> P.Value? {
    // There is always a snapshot: the first is made with the properties.
    return snapshot.loadStored().borrow { current -> P.Value? in
      guard current.validAt.load(ordering: .acquiring) == tree.generation.load(ordering: .acquiring),
        let box = current.box(for: FeatureTable.key(property))
      else { return nil }
      return box.known(as: PropertyBox<P.Value>.self).borrow { $0.value }
    }
  }

  /// The value of `property` on `branch`, this one's branch, which the caller keeps alive.
  @usableFromInline
  func value<P: FeaturesProperty>(_ property: P.Type, in branch: Branch) -> P.Value {
    if let value = cached(property) { return value }
    let box = refresh(FeatureTable.key(property), in: branch) { PropertyBox(P.defaultValue, source: .default) }
    return UncountedReference.cast(box, to: PropertyBox<P.Value>.self).value
  }

  /// Makes the snapshot current and holding the property keyed `key`, and returns its box.
  private func refresh(_ key: UInt, in branch: Branch, makeDefault: () -> AnyPropertyBox) -> AnyPropertyBox {
    state.withLock { state in
      // Read before resolving: a set that lands meanwhile moves it on, and the next read resolves
      // again.
      let generation = tree.generation.load(ordering: .acquiring)
      let current = state.snapshots[state.snapshots.count - 1]
      var entries = current.entries
      if current.validAt.load(ordering: .relaxed) == generation, let found = entries.first(where: { $0.key == key }) {
        return found.box  // another read refreshed it meanwhile
      }
      var changed = false
      if !entries.contains(where: { $0.key == key }) {
        let made = makeDefault()
        state.defaults[key] = made
        entries.append((key, made))
        changed = true
      }
      for index in entries.indices {
        let resolved =
          Self.source(of: entries[index].key, in: branch, own: state.own) ?? state.defaults[entries[index].key]!
        if resolved !== entries[index].box {
          entries[index].box = resolved
          changed = true
        }
      }
      if changed {
        let next = PropertySnapshot(entries, validAt: generation)
        state.snapshots.append(next)
        snapshot.store(next)
      } else {
        current.validAt.store(generation, ordering: .releasing)
      }
      return entries.first { $0.key == key }!.box
    }
  }

  /// The value set on this branch for the property keyed `key`, if any.
  func ownValue(_ key: UInt) -> AnyPropertyBox? {
    state.withLock { $0.own[key] }
  }

  /// Every value set on this branch: what a test copy of the branch starts with.
  var ownValues: [UInt: AnyPropertyBox] {
    get { state.withLock { $0.own } }
    set { state.withLock { $0.own = newValue } }
  }

  /// Sets the value of the property keyed `key` on this branch, unless `isEqual` says the value
  /// already set there is equal.
  ///
  /// - Returns: Whether it changed anything.
  func setOwn(_ box: AnyPropertyBox, for key: UInt, unlessEqual isEqual: (AnyPropertyBox) -> Bool) -> Bool {
    state.withLock { state in
      if let existing = state.own[key], isEqual(existing) { return false }
      state.own[key] = box
      return true
    }
  }

  /// Sets `property` to `value` on `branch`, this one's branch, which the caller keeps alive.
  func set<P: FeaturesProperty>(_ property: P.Type, to value: P.Value, in branch: Branch, at site: SourceLocation) {
    let box = PropertyBox(value, source: .set(path: branch.path, site: site))
    tree.set(box, for: FeatureTable.key(property), on: self) { existing in existing.hasValue(equalTo: box) }
  }

  /// A stream of `property`'s value on `branch`, this one's branch: the current value, then each
  /// change.
  func observe<P: FeaturesProperty>(_ property: P.Type, in branch: Branch) -> AsyncStream<P.Value> {
    let (stream, continuation) = AsyncStream<P.Value>.makeStream()
    let observer = PropertyObserver(property, continuation: continuation)
    let id = ObjectIdentifier(observer)
    // Weak: the stream must not keep the branch's properties (nor the branch) alive.
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { $0.observers.removeAll { ObjectIdentifier($0) == id } }
    }
    tree.start(observer, on: branch, properties: self)
    return stream
  }

  /// Adds a started observer.
  func add(_ observer: PropertyObserver) {
    state.withLock { $0.observers.append(observer) }
  }

  /// The observers of the property keyed `key`.
  func observers(of key: UInt) -> [PropertyObserver] {
    state.withLock { $0.observers.filter { $0.key == key } }
  }
  // MARK: Looking up along the path

  /// The value of `property` in `branch` if its snapshot holds it, current.
  ///
  /// Static, on an uncounted branch reference, like ``Branch/peek(_:in:)``: inlined whole into the
  /// caller, with nothing for the optimiser to retain.
  @inlinable @inline(__always)
  static func peek<P: FeaturesProperty>(_ property: P.Type, in branch: UncountedReference<Branch>) -> P.Value? {
    // A closed branch reads the slow way, which reports `FeaturesClosed`: the same byte a cached
    // request tests.
    let (slowPathFlags, properties) = branch.borrow {
      ($0.slowPathFlags.load(ordering: .relaxed), $0.propertiesReference.load())
    }
    guard let properties, slowPathFlags & Branch.closedBit == 0 else { return nil }
    return properties.borrow { $0.cached(property) }
  }

  /// The box of the value the property keyed `key` has on `branch`; `nil` for its default.
  ///
  /// A value set on the branch, else on the nearest ancestor that sets one, else the nearest
  /// registry value on the path. The caller keeps the branch and its ancestors alive.
  ///
  /// - Parameter own: The values set on `branch`, when the caller holds its lock.
  static func source(of key: UInt, in branch: Branch, own: [UInt: AnyPropertyBox]? = nil) -> AnyPropertyBox? {
    // With `own` given, the caller holds the branch's lock: it must not be taken again.
    if let box = own != nil ? own?[key] : branch.existingProperties?.ownValue(key) { return box }
    var next = branch.parent
    while let ancestor = next {
      if let box = ancestor.existingProperties?.ownValue(key) { return box }
      next = ancestor.parent
    }
    let tree = branch.existingProperties?.tree
    next = branch
    while let current = next {
      if let box = current.definition.properties[key]?.box(readBy: tree) { return box }
      next = current.parent
    }
    return nil
  }

  /// Every value the property keyed `key` has on `branch`'s path, in the order lookup considers
  /// them: sets, the branch's first, then registry values, the nearest first. The first is the one
  /// in effect.
  static func sources(of key: UInt, in branch: Branch) -> [AnyPropertyBox] {
    var sets: [AnyPropertyBox] = []
    var registries: [AnyPropertyBox] = []
    var next: Branch? = branch
    while let current = next {
      if let box = current.existingProperties?.ownValue(key) { sets.append(box) }
      if let box = current.definition.properties[key]?.box(readBy: nil) { registries.append(box) }
      next = current.parent
    }
    return sets + registries
  }
}
