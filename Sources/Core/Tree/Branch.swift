import Synchronization

/// A node of a features tree: a scope's definition, a context, and the instances cached here.
///
/// Cached instances without a context live in units (see ``UnitLayout``), one per cacheable of the
/// scope that was ever loaded, in one buffer with the branch's context (`storage`, the tail of the
/// branch's ``BranchAnchor``): a cached resolve is a table lookup, a load of the unit's word, an
/// acquiring load of the unit's state word and a copy of the instance stored in place; no lock, no
/// allocation, no reference count. A unit given out after the branch was made lives in an
/// ``OverflowBlock`` instead, reached off the inlined path. Each unit starts with its state word,
/// which ``UnitState`` reads and writes: the first request claims an empty unit with one
/// compare-and-exchange and publishes the instance with one exchange; the branch's lock is made
/// and taken only when a request must wait for another's load.
@usableFromInline
package final class Branch: @unchecked Sendable {
  // Sendable: every stored property is immutable except the units' state words (atomics), what
  // `state` guards (a Lock), and the path, lock and overflow blocks (whose word is in the anchor),
  // each published once by an atomic compare-and-exchange. An instance is written before its state
  // word is set with release ordering and never written again; instances are destroyed in deinit,
  // when no reader remains. `slowPathFlags` is atomic. The sibling links and `isLinked` are written only
  // under the parent anchor's children lock (acquiring and releasing atomics); `hasRecordedTeardowns`
  // under `state`, and read in deinit, which the last release orders after every other access.
  @usableFromInline package let definition: ScopeDefinition
  /// The parent branch, kept alive by this branch's hold on it (see ``BranchAnchor``), or while a
  /// request holds the ``tether``.
  package var parent: Branch? { parentReference?.object }
  /// The anchor of the nearest branch above that this branch's line of parents does not hold: set
  /// when this branch, or one above it, was made through a loader's features.
  ///
  /// Such a branch must not keep its parent alive (a cached instance that keeps it would keep its
  /// own branch alive forever), so its ancestors may be released before it: a request through it
  /// first holds the tether (``BranchAnchor/holdTethers()``) and fails with ``FeaturesReleased`` if
  /// it is gone. `nil` for every branch made through features that keep their branch alive.
  @usableFromInline let tether: BranchAnchor?

  /// Whether this branch has a ``tether``, as user features of it record.
  @inlinable var isTethered: Bool { tether != nil }
  /// Where this branch is, for diagnostics; see ``path``.
  private let pathStorage = AtomicLazyReference<ScopePath>()
  /// The test container's overrides, as one word rather than an existential's two: read only off
  /// the hot path, through ``overrides``.
  @usableFromInline let overridesObject: (any AnyObject & Sendable)?
  /// `parent` without a reference count, for walking up while resolving; this branch holds it.
  @usableFromInline let parentReference: UncountedReference<Branch>?
  // A word more would put the object in a larger malloc size class (`BranchFootprintTests` checks
  // it), so the small fields fill the rest of the table's last word (its shift is one byte) and
  // one word after `propertiesReference`; the fields the inlined reads use (`table`, `storage`,
  // `slowPathFlags`) come first.
  /// The scope's feature table; `definition` keeps its buckets alive.
  @usableFromInline let table: FeatureTable.Lookup
  /// Whether `storage` holds a `Scope.Context` at `contextOffset`; not when the branch was made
  /// from a path alone (a test container's copy), whose contexts only `path` holds.
  @usableFromInline let hasTypedContext: Bool
  /// Whether this branch holds its parent: not when it was made through a loader's features.
  let holdsParent: Bool
  /// Whether this branch is in its parent's list of children; guarded as the sibling links are.
  var isLinked = false
  /// How many units `storage` has room for, in give-out order.
  let storedUnitCount: Int32
  /// What this branch caches in place, and its context: see ``BranchStorage``.
  @usableFromInline let storage: BranchStorage
  /// The bytes this branch keeps for cached instances in its own storage: what a branch costs for
  /// its scope's cacheables. A test hook.
  package var unitByteCount: Int { storage.unitBytes - UnitLayout.headerByteCount }
  /// The key (``FeatureTable/key(_:)``) of this branch's scope type.
  @usableFromInline let scopeKey: UInt
  /// The features this branch's loaders receive, made with the branch: loads hand them out
  /// borrowed, without touching a reference count.
  @usableFromInline let loaderFeatures: Features
  /// The ``state`` lock, retained, once something needed it. An ``AtomicReference`` rather than an
  /// `AtomicLazyReference`, whose `load()` is not specialised here: a close and each recorded
  /// teardown read it.
  private let lockReference = AtomicReference<Lock<State>>()
  /// The branch's ``BranchProperties``, retained, once a property was read, set or observed
  /// through it. Not a lazy reference: reads load it without retaining.
  @usableFromInline let propertiesReference = AtomicReference<BranchProperties>()
  /// Where the context starts in `storage`: after the units, aligned for it.
  @usableFromInline let contextOffset: Int32
  /// What sends every request off the inlined path: ``overriddenBit`` (a test container's
  /// overrides are consulted before the table) and ``closedBit`` (see ``isClosed``).
  ///
  /// The inlined read loads this byte where it loaded a constant flag before, so checking that a
  /// branch is still open costs a cached read nothing: closing sets the bit, and the read goes the
  /// slow way, which throws ``FeaturesClosed``.
  @usableFromInline let slowPathFlags: Atomic<UInt8>
  /// Whether an instance with a teardown was ever recorded here (set under `state`): deinit then
  /// looks for the teardowns that never ran, and no other branch pays for the look.
  var hasRecordedTeardowns = false
  /// The sibling links of this branch in its parent's list of children
  /// (``BranchAnchor/newestChild``), guarded by the parent anchor's ``BranchAnchor/withChildren(_:)``.
  var olderSibling: UncountedReference<Branch>?
  var newerSibling: UncountedReference<Branch>?

  /// The bit of ``slowPathFlags`` a test container's branches set.
  @usableFromInline static var overriddenBit: UInt8 { 0b01 }
  /// The bit of ``slowPathFlags`` that closing sets.
  @usableFromInline static var closedBit: UInt8 { 0b10 }

  /// What the branch's lock (``state``) guards: its loads in flight, its start and lifecycle, the
  /// teardowns it owes, and the instances it holds rather than caches in place.
  struct State {
    /// The loads in flight that requests or closes wait for: see ``LoadTable``.
    var loads = LoadTable<LoadKey, any LoadInFlight>()
    /// The branch's start, once one began: every caller of `start()` awaits its outcome.
    var start: Task<StartUp.Outcome, Never>?
    /// Open, closing or closed: who closed the branch, the closes waiting for the outcome, and
    /// the outcome (see ``Branch/isClosed``).
    var lifecycle = BranchLifecycle<CheckedContinuation<[TeardownFailed.Failure], Never>, [TeardownFailed.Failure]>()
    /// The teardowns owed here, in the order their instances were loaded.
    var teardowns = OwedTeardowns()
    /// The instances held here rather than in place, and which instances were built from which.
    var held = HeldInstances()
  }

  package convenience init(
    definition: ScopeDefinition, parent: Branch?, path: ScopePath, overrides: (any FeatureOverrides)?
  ) {
    self.init(
      definition: definition, parent: parent.map { UncountedReference($0) }, holdsParent: true, path: path,
      overrides: overrides, context: nil)
  }

  /// A new branch of `scope` below this one, carrying `context`, which it keeps typed in its own
  /// storage: loaders read it without a dynamic cast, and its ``path`` is made only if something
  /// asks for it.
  ///
  /// Inlined, so that the context is stored without a generic call.
  ///
  /// - Parameter holdsParent: Whether the new branch keeps this one alive: not when it is made
  ///   through a loader's features (see ``tether``).
  @inlinable
  func branch<Scope: FeaturesScope>(
    _ scope: Scope.Type, context: Scope.Context, holdsParent: Bool, at location: SourceLocation
  ) throws -> UncountedReference<Branch> {
    let child = try child(
      scope, context: ContextLayout(Scope.Context.self), holdsParent: holdsParent, at: location)
    child.borrow { child in
      child.storage.initializeContext(context, at: child.contextOffset)
    }
    try refuseIfMadeClosed(child, scope, at: location)
    if definition.isObserved { child.borrow { $0.reportCreated() } }
    return child
  }

  /// A new branch of `scope` below this one, with room for a context of `context`'s layout, which
  /// the caller stores, then calls ``refuseIfMadeClosed(_:_:at:)``.
  ///
  /// - Returns: The branch, retained: the reference its first holder takes over
  ///   (``Features/init(adopting:)``).
  @usableFromInline
  func child(
    _ scope: any FeaturesScope.Type, context: ContextLayout, holdsParent: Bool, at location: SourceLocation
  ) throws -> UncountedReference<Branch> {
    if isClosed { throw FeaturesClosed(.branching(scope), through: self, requestedAt: location) }
    let child = Branch(
      definition: try definition.childDefinition(scope, below: self, at: location), parent: UncountedReference(self),
      holdsParent: holdsParent, path: nil, overrides: overridesObject, context: context)
    return UncountedReference.retaining(child)
  }

  /// Drops `child`, its context stored, if this branch started closing while it was made (the
  /// child was then made closed), and throws ``FeaturesClosed``. Only after the context is stored:
  /// dropping the child destroys its context.
  @usableFromInline
  func refuseIfMadeClosed(
    _ child: UncountedReference<Branch>, _ scope: any FeaturesScope.Type, at location: SourceLocation
  )
    throws
  {
    guard child.borrow({ $0.isClosed }) else { return }
    child.release()
    throw FeaturesClosed(.branching(scope), through: self, requestedAt: location)
  }

  /// The layout of a branch's context.
  @usableFromInline
  struct ContextLayout {
    @usableFromInline let size: Int
    @usableFromInline let alignment: Int

    @inlinable
    init<Context>(_ type: Context.Type) {
      size = MemoryLayout<Context>.size
      alignment = MemoryLayout<Context>.alignment
    }
  }

  /// A branch of `definition` below `parent`, with room for a context of `context`'s layout, which
  /// the caller stores before publishing the branch.
  @inline(__always)
  private init(
    definition: consuming ScopeDefinition, parent: UncountedReference<Branch>?, holdsParent: Bool,
    path: consuming ScopePath?,
    overrides: consuming (any AnyObject & Sendable)?, context: ContextLayout?
  ) {
    let layout = definition.layout
    let unitCount = layout.count
    let unitBytes = layout.byteCount(ofFirst: unitCount)
    let contextSize = context?.size ?? 0
    let contextAlignment = context?.alignment ?? 1
    let contextOffset = (unitBytes + contextAlignment - 1) / contextAlignment * contextAlignment
    // The features own the new anchor; from here on it is reached unretained through them.
    let features = BranchAnchor.features(storageByteCount: contextOffset + contextSize)
    let anchor = Features.loaderAnchor(at: features.address)
    storage = anchor.borrow { $0.initializeStorage(layout: layout, unitCount: unitCount) }
    storedUnitCount = Int32(unitCount)
    loaderFeatures = consume features
    self.contextOffset = Int32(contextOffset)
    table = definition.lookup
    scopeKey = definition.scopeKey
    if let path { _ = pathStorage.storeIfNil(path) }
    slowPathFlags = Atomic(overrides != nil ? Self.overriddenBit : 0)
    overridesObject = consume overrides
    parentReference = parent
    hasTypedContext = context != nil
    self.holdsParent = holdsParent
    tether = parent?.borrow { parent in
      holdsParent ? parent.tether : parent.anchor.object
    }
    self.definition = consume definition
    anchor.borrow { $0.attach(self) }
    if holdsParent { parent?.borrow { $0.anchor.borrow { $0.hold() } } }
    parent?.borrow { $0.link(self) }
  }

  private func destroyContext<Scope: FeaturesScope>(of scope: Scope.Type) {
    storage.deinitializeContext(Scope.Context.self, at: contextOffset)
  }

  deinit {
    propertiesReference.releaseStored()
    defer {
      if holdsParent {
        parentReference?.borrow { $0.anchor.borrow { $0.release() } }
      }
    }
    leaveParent()
    endLifecycle()
    defer { lockReference.releaseStored() }
    if hasTypedContext { destroyContext(of: definition.scope) }
    units.destroy()
  }

  /// The test container's overrides, if this branch is one's.
  package var overrides: (any FeatureOverrides)? {
    // Only a `FeatureOverrides` is ever stored (see `init`).
    overridesObject.map { $0 as! any FeatureOverrides }
  }

  /// The branch's lock, and what it guards: the loads in flight (``LoadTable``), the lifecycle and
  /// the start, the teardowns recorded, and the instances held under it.
  ///
  /// Many branches never need it (a first load of a cacheable without a context claims its unit
  /// with an atomic operation), so it is made on first use: a branch costs no lock until one of its
  /// loads is contended, or loads a multiton, an async or a held instance, or records a teardown.
  var state: Lock<State> {
    lockReference.storeIfNone { Lock.make(State()) }
  }

  /// The ``state`` lock, if something made it.
  var existingState: Lock<State>? {
    lockReference.load()?.object
  }

  /// Where this branch is: its scope and context, and its ancestors', for diagnostics and for the
  /// contexts of a test container's branches.
  ///
  /// Made on first use from the scope and the context this branch keeps typed, and kept.
  package var path: ScopePath {
    pathStorage.load() ?? pathStorage.storeIfNil(makePath(definition.scope))
  }

  /// This branch's properties, made on first use (with its ancestors', up to the root's, whose
  /// ``PropertyTree`` they share).
  var properties: BranchProperties {
    propertiesReference.storeIfNone {
      BranchProperties(tree: parent?.properties.tree ?? PropertyTree(), anchor: anchor.object)
    }
  }

  /// This branch's properties, if anything used them yet.
  var existingProperties: BranchProperties? {
    propertiesReference.load()?.object
  }

  /// Gives this branch, a test copy of `original`, the values set on `original`.
  package func copyProperties(from original: Branch) {
    guard let values = original.existingProperties?.ownValues, !values.isEmpty else { return }
    properties.ownValues = values
  }

  /// The path, if something made it already: all a branch can say of where it is once its
  /// ancestors may be gone (in deinit).
  var pathIfMade: ScopePath? { pathStorage.load() }

  /// The path of this branch of `Scope`: only a branch made with a typed context has none yet.
  private func makePath<Scope: FeaturesScope>(_ scope: Scope.Type) -> ScopePath {
    let context = storage.context(Scope.Context.self, at: contextOffset)
    return ScopePath(scope, context: context, parent: parent!.path)
  }

  /// The context of the nearest branch of `scope` (this one or an ancestor), read in place without
  /// a reference count or a cast; `nil` when that is not certain (no branch of `scope`, or one made
  /// from a path alone), for the caller to ask `path`.
  @inlinable
  func context<Scope: FeaturesScope>(in scope: Scope.Type) -> Scope.Context? {
    // A closed branch (or one below a closed branch, which closing marks too) reads none.
    guard slowPathFlags.load(ordering: .relaxed) & Self.closedBit == 0 else { return nil }
    let key = FeatureTable.key(scope)
    if scopeKey == key {
      return !hasTypedContext ? nil : storage.context(Scope.Context.self, at: contextOffset)
    }
    var next = parentReference
    while let branch = next {
      let found = branch.borrow { branch -> (isScope: Bool, context: Scope.Context?) in
        guard branch.scopeKey == key else { return (false, nil) }
        guard branch.hasTypedContext else { return (true, nil) }
        return (true, branch.storage.context(Scope.Context.self, at: branch.contextOffset))
      }
      if found.isScope { return found.context }
      next = branch.borrow { $0.parentReference }
    }
    return nil
  }

  /// The branch `depth` levels up.
  func ancestor(_ depth: Int) -> Branch {
    ancestorReference(depth).object
  }

  /// The branch `depth` levels up, without touching a reference count: `self` keeps it alive.
  @inlinable @inline(__always)
  func ancestorReference(_ depth: Int) -> UncountedReference<Branch> {
    var branch = UncountedReference(self)
    var depth = depth
    while depth > 0 {
      branch = branch.borrow { $0.parentReference! }
      depth &-= 1
    }
    return branch
  }

  /// The unit of `entry` in the storage of the branch `depth` levels up, if that storage has room
  /// for it: plain pointers all the way, so the walk touches no reference count. `nil` for a unit
  /// not given out yet, or given out after that branch was made (then in an overflow block: see
  /// ``BranchUnits/unit(word:giveOut:)``).
  @inlinable @inline(__always)
  func inlineUnit(up depth: Int, _ entry: FeatureTable.EntryReference) -> BranchStorage.Unit? {
    storage(up: depth).unit(entry)
  }

  /// The storage of the branch `depth` levels up: plain pointers all the way, so the walk touches
  /// no reference count.
  @inlinable @inline(__always)
  func storage(up depth: Int) -> BranchStorage {
    guard depth > 0 else { return storage }
    var branch = parentReference!
    var depth = depth &- 1
    while depth > 0 {
      branch = branch.borrow { $0.parentReference! }
      depth &-= 1
    }
    return branch.borrow { $0.storage }
  }

  /// ``BranchUnits/unit(word:giveOut:)``, for the inlined load.
  @usableFromInline
  func unit(word: SharedWord, giveOut: Bool) -> BranchStorage.Unit? {
    units.unit(word: word, giveOut: giveOut)
  }

  /// Every unit this branch has room for: in `storage`, then in the overflow blocks, whose chain
  /// is in the anchor (``BranchAnchor/overflow``) and owned by this branch: its deinit frees them.
  var units: BranchUnits {
    BranchUnits(
      storage: storage, layout: definition.layout, storedCount: Int(storedUnitCount),
      overflow: OverflowChain(word: anchor.borrow { $0.overflow }))
  }

  /// The anchor of the features this branch's loaders receive.
  @inlinable @inline(__always)
  var anchor: UncountedReference<BranchAnchor> {
    // The address alone: reading the whole features would retain their owner.
    Features.loaderAnchor(at: loaderFeatures.address)
  }

  /// Tells the tree's observer this branch was made.
  @usableFromInline
  func reportCreated() {
    definition.observer?.branchCreated(BranchEvent(branchPath: path, time: .now))
  }

  /// The branch of the root of this tree.
  var root: Branch { parent?.root ?? self }
}

extension Branch: InvariantChecking {
  /// Checks what the unsafe code of a branch relies on: its units (see ``BranchUnits``), where its
  /// context is, and, when quiescent, that no load is in flight and that the lock of its children
  /// is free. Stress tests call it after their runs; it costs nothing unless called.
  package func invariantViolations(quiescent: Bool) -> [String] {
    var violations = units.violations(quiescent: quiescent)
    if Int(contextOffset) < storage.unitBytes {
      violations.append("the context at \(contextOffset) overlaps the units")
    }
    if hasTypedContext, let alignment = misalignedContext(definition.scope) {
      violations.append("the context at \(contextOffset) is not aligned to \(alignment)")
    }
    if quiescent, anchor.borrow({ $0.isChildrenLocked }) { violations.append("the lock of its children is held") }
    if quiescent, let loads = existingState?.withLock({ $0.loads.inFlight.count }), loads != 0 {
      violations.append("\(loads) loads are in flight")
    }
    let branch = Diagnostic.render(scope: path.diagnosticSteps, style: .unicode)
    return violations.map { "\(branch): \($0)" }
  }

  /// The alignment the context of `scope` needs, if it is not stored so.
  private func misalignedContext<Scope: FeaturesScope>(_ scope: Scope.Type) -> Int? {
    storage.isContextAligned(Scope.Context.self, at: contextOffset) ? nil : MemoryLayout<Scope.Context>.alignment
  }

  /// The addresses of two of the three objects a branch is made of, its own and its anchor's (the
  /// third, its handle, keeps one word): a test hook, for the sizes `malloc` gives them, which case
  /// f of the benchmarks counts.
  package var objectAddresses: (branch: UInt, anchor: UInt) {
    (UncountedReference(self).address, anchor.address)
  }
}
