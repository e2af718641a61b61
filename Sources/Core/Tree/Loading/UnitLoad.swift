/// The instance of `F` a branch caches in place, in one of its units: a cacheable without a
/// context, loaded once however many requests race for it, claimed through the unit's word without
/// a lock.
///
/// The lock-free counterpart of ``KeyedLoad``: the unit's word holds the ``LoadState`` a
/// ``LoadTable`` holds for the others. The first request claims the empty unit with a
/// compare-and-exchange (``UnitState/claim(for:isOpen:)``), runs the loader without holding any lock,
/// stores the instance and ends the load with an exchange (``UnitState/finishLoad(of:loaded:in:outcome:)``).
/// A request that finds the unit claimed waits for that load through the branch's ``LoadTable``,
/// or finds a cycle. Specialised for `F` (the first request of every cacheable takes it), with the
/// rare paths out of line.
@usableFromInline
struct UnitLoad<F: Feature> {
  /// The branch whose unit caches the instance.
  @usableFromInline let branch: Branch
  /// The feature's entry in the requesting branch's scope, whose unit word and offsets are
  /// `branch`'s (the requesting branch, or the ancestor that registers the feature).
  @usableFromInline let entry: FeatureTable.EntryReference

  @inlinable @inline(__always)
  init(_ feature: F.Type, entry: FeatureTable.EntryReference, in branch: Branch) {
    self.branch = branch
    self.entry = entry
  }

  /// Loads the instance in the branch `depth` levels up from `branch`: the inlined read's way out.
  ///
  /// Out of line: an uncounted reference made on the inlined path would count as an escape of
  /// `branch`, and the optimiser would then retain it around every cached read.
  @inlinable @inline(never)
  static func load(
    up depth: Int, from branch: Branch, context: F.Context, entry: FeatureTable.EntryReference,
    at location: SourceLocation
  ) throws -> F {
    try branch.ancestorReference(depth).borrow { owner in
      try UnitLoad(F.self, entry: entry, in: owner).load(context: context, at: location)
    }
  }

  /// The cached instance, or the one this request loads, or the one the load it waited for stored.
  ///
  /// A chain of cacheables that request each other stacks this frame once per link: what does not
  /// run the loader (an async loader's, a held instance's, the claim and its waits) is in calls
  /// that return before it runs.
  @inlinable
  func load(context: F.Context, at location: SourceLocation) throws -> F {
    if entry.isAsync || entry.loadsOnMainActor { return try loadedThroughTable(context: context, at: location) }
    switch entry.keeping {
    case .inPlace: break
    // Instances that expire are held under the lock, where a request can tell their age.
    case .held: return try loadHeld(context: context, at: location)
    case .nowhere, .perContext: preconditionFailure("only a cacheable without a context loads through its unit")
    }
    // In the branch's own storage unless it was given out after the branch was made.
    let unit = branch.storage.unit(entry) ?? branch.unit(word: entry.unitWord, giveOut: true)!
    // Loaded already (a unit in an overflow block is read here): a plain load, not a claim that
    // would take the unit's cache line from the other readers.
    if let instance = unit.instance(F.self, at: entry.instanceOffset) { return instance }
    let thread = LoadingThread.currentReference
    switch try claim(unit.state, thread: thread, at: location) {
    case .own: break
    case .cached: return unit.storedInstance(F.self, at: entry.instanceOffset)
    case .held: return try loadHeld(context: context, at: location)
    }
    let loaded: Loaded<F>
    do {
      loaded = try branch.load(F.self, context: context, entry: entry, at: location, thread: thread)
    } catch {
      unit.state.finishLoad(of: F.self, loaded: false, in: branch, outcome: .failure(error))
      throw error
    }
    cache(loaded, in: unit)
    return loaded.instance
  }

  /// Caches what the load this request owns loaded in `unit`, and ends the load.
  @inlinable @inline(__always)
  func cache(_ loaded: Loaded<F>, in unit: BranchStorage.Unit) {
    unit.store(loaded.instance, at: entry.instanceOffset)
    // Recorded before the load ends, so that a close waiting for it finds the teardown, and a
    // renewal what the instance was built from.
    let teardown = entry.hasTeardown ? recordTeardown(of: loaded.instance) : nil
    if !loaded.received.isEmpty { record(loaded.received, teardown: teardown) }
    // Waiters read the unit again.
    unit.state.finishLoad(of: F.self, loaded: true, in: branch, outcome: .success(branch))
  }

  /// What a request's claim of the unit came to.
  @usableFromInline
  enum Claim {
    /// The request owns the load: it runs the loader.
    case own
    /// Another load stored the instance.
    case cached
    /// The unit was relocated: the branch holds the feature's instances (``loadHeld(context:at:)``).
    case held
  }

  /// Claims `unit` for a load on `thread`, waiting for the load of another thread that holds it.
  ///
  /// - Throws: ``FeaturesClosed`` once the branch is closed, and ``CircularDependency`` when this
  ///   thread's own load holds the unit.
  @inlinable @inline(__always)
  func claim(
    _ unitState: UnitState, thread: UncountedReference<LoadingThread>, at location: SourceLocation
  ) throws -> Claim {
    while true {
      switch unitState.claim(for: thread, isOpen: !branch.isClosed) {
      case .own:
        // Asked again after the claim, which took no lock: a close that starts now finds the claim
        // and waits for this load, and one that started before is seen here (both are sequentially
        // consistent).
        guard branch.isClosed else { return .own }
        let error = closed(at: location)
        unitState.finishLoad(of: F.self, loaded: false, in: branch, outcome: .failure(error))
        throw error
      case .cached:
        return .cached
      case .join(let owner):
        try wait(for: owner, of: unitState, thread: thread, at: location)
      case .refused:
        throw closed(at: location)
      case nil:
        return .held
      }
    }
  }

  /// The error of this request once the branch is closed: one box, handed to the waiters and
  /// thrown.
  @usableFromInline
  func closed(at location: SourceLocation) -> any Error {
    FeaturesClosed(.resolving(F.self), through: branch, requestedAt: location)
  }

  /// Waits for the load of `owner` that claimed `unit`.
  ///
  /// A claim of this very thread means the request comes from inside that load: a cycle.
  ///
  /// It returns once the load ended, and the caller looks at the unit again: there it finds the
  /// instance, or an empty unit to claim if the load failed before this request could wait for it.
  @usableFromInline
  func wait(
    for owner: UncountedReference<LoadingThread>, of unit: UnitState,
    thread reference: UncountedReference<LoadingThread>, at location: SourceLocation
  ) throws {
    let thread = reference.object
    if owner == reference {
      throw CircularDependency(thread.frames, closingWith: F.self, in: branch, at: location)
    }
    guard let inFlight = unit.inFlight(F.self, tracking: branch.state) else { return }
    _ = try inFlight.outcome(of: F.self, waitingAs: thread, binding: entry.binding.object, in: branch, at: location)
  }

  /// The instance of an async or a main-actor loader: its load is claimed in the branch's table (by
  /// the async path, or by a request on the main actor), never in the unit; what it loaded may be in
  /// an overflow block, which the inlined read does not look at.
  @usableFromInline
  func loadedThroughTable(context: F.Context, at location: SourceLocation) throws -> F {
    if let instance = branch.unit(word: entry.unitWord, giveOut: false)?.instance(F.self, at: entry.instanceOffset) {
      return instance
    }
    return try loadHeld(context: context, at: location)
  }

  /// The instance, held by the branch under its lock (it expires, or was renewed) or loaded by an
  /// async loader: a ``KeyedLoad``.
  @usableFromInline
  func loadHeld(context: F.Context, at location: SourceLocation) throws -> F {
    try KeyedLoad(F.self, context: context, entry: entry.pointer.pointee, in: branch).load(through: entry, at: location)
  }

  /// Records the teardown of `instance`, just cached, to run when the branch closes.
  ///
  /// - Returns: The number it is owed under.
  @usableFromInline
  func recordTeardown(of instance: F) -> Int {
    PendingTeardown(of: instance, context: nil, binding: entry.binding.object).record(in: branch)
  }

  /// Records that the instance just cached was built from `received`, for renewals, with the number
  /// its teardown is owed under, if it has one.
  @usableFromInline
  func record(_ received: [Dependency], teardown: Int?) {
    let key = LoadKey(feature: ObjectIdentifier(F.self), context: nil)
    branch.state.withLock { $0.held.record(key, dependencies: received, teardown: teardown) }
  }
}
