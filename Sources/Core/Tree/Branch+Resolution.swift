import Synchronization

extension Branch {
  /// The one resolution primitive: every request for any kind of feature ends here.
  ///
  /// Inlined into the caller and specialised for `F`: a cached instance (a multiton's too), a static
  /// value or a disposable's loader is reached without a lock, an allocation or a reference count.
  /// Everything else (test overrides, first loads, instances in overflow blocks, conflicts,
  /// undefined features) takes ``resolveSlowly(_:context:at:)`` or a load.
  ///
  /// - Parameter thread: This thread's loading state, when the caller has it at hand.
  @inlinable @inline(__always)
  func resolve<F: Feature>(
    _ feature: F.Type, context: F.Context, at location: SourceLocation, thread: UncountedReference<LoadingThread>? = nil
  ) throws -> F {
    if slowPathFlags.load(ordering: .relaxed) == 0, let entry = table.entry(for: FeatureTable.key(feature)) {
      switch entry.kind {
      case .serves(.cacheable):
        if let unit = inlineUnit(up: entry.depth, entry),
          let instance = unit.instance(feature, at: entry.instanceOffset)
        {
          return instance
        }
        return try loadSlotted(up: entry.depth, feature, context: context, entry: entry, at: location)
      case .serves(.static):
        return entry.payload.known(as: Box<F>.self).borrow { $0.value }
      case .serves(.disposable):
        return try load(feature, context: context, entry: entry, at: location, thread: thread)
      case .serves(.cacheablePerContext):
        if let unit = inlineUnit(up: entry.depth, entry),
          let instance = Self.cachedMultiton(feature, context: context, in: unit)
        {
          return instance
        }
      case .conflict:
        break
      }
    }
    return try resolveSlowly(feature, context: context, at: location)
  }

  /// Resolves `feature` as the synchronous request does when its loader is synchronous (or it is
  /// undefined, or in conflict: the synchronous request throws what it should); `nil` when its
  /// loader is asynchronous, for ``AsyncRequest/resolve()`` to run. Inlined, as `resolve` is.
  @inlinable @inline(__always)
  func resolveUnlessAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F? {
    if let entry = table.entry(for: FeatureTable.key(feature)), case .serves = entry.kind, entry.isAsync { return nil }
    return try resolve(feature, context: context, at: location)
  }

  /// The instance of `feature` in `branch` if it takes no loading: a cached instance or a static
  /// value.
  ///
  /// Static, on an uncounted branch reference, with each field read in a closure of its own: inlined whole
  /// into the caller, with nothing for the optimiser to retain.
  @inlinable @inline(__always)
  static func peek<F: Feature>(_ feature: F.Type, in branch: UncountedReference<Branch>) -> F? {
    // A closed branch sends its requests the slow way through `slowPathFlags`.
    let (slowPathFlags, table) = branch.borrow {
      ($0.slowPathFlags.load(ordering: .relaxed), $0.table)
    }
    guard slowPathFlags == 0, let entry = table.entry(for: FeatureTable.key(feature)) else { return nil }
    switch entry.kind {
    case .serves(.cacheable):
      var owner = branch
      var depth = entry.depth
      while depth > 0 {
        owner = owner.borrow { $0.parentReference! }
        depth &-= 1
      }
      return owner.borrow { $0.storage }.unit(entry)?.instance(feature, at: entry.instanceOffset)
    case .serves(.static):
      return entry.payload.known(as: Box<F>.self).borrow { $0.value }
    case .serves(.disposable), .serves(.cacheablePerContext), .conflict:
      return nil
    }
  }

  /// What ``resolve(_:context:at:)`` keeps off its inlined path.
  @usableFromInline
  func resolveSlowly<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F {
    if isClosed { throw closed(.resolving(feature), at: location) }
    if let overrides, let instance = overrides.instance(of: feature, context: context, in: self, at: location) {
      return instance
    }
    guard let entry = table.entry(for: FeatureTable.key(feature)) else {
      if let overrides, overrides.resolvesPlaceholders { return F.placeholder }
      throw FeatureUndefined(feature, in: self, at: location)
    }
    switch entry.kind {
    case .serves(.cacheable):
      let owner = ancestor(entry.depth)
      if let instance = owner.cached(feature, entry: entry.pointer.pointee) { return instance }
      return try owner.loadSlotted(feature, context: context, entry: entry, at: location)
    case .serves(.static):
      return entry.payload.known(as: Box<F>.self).borrow { $0.value }
    case .serves(.disposable):
      return try load(feature, context: context, entry: entry, at: location)
    case .serves(.cacheablePerContext):
      return try ancestor(entry.depth).loadKeyed(
        feature, context: context, entry: entry, key: LoadKey(feature, context: context, isMultiton: true), at: location
      )
    case .conflict:
      throw FeatureRegistrationConflict(entry.binding.object, in: self, at: location)
    }
  }

  /// Runs the loader of `entry` in this branch, with a frame on the resolution path.
  ///
  /// Inlined so that a disposable's load is specialised: the frame lives on this stack, and the
  /// loader is called through its box without a reference count.
  @inlinable @inline(__always)
  func load<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation,
    thread: UncountedReference<LoadingThread>? = nil
  ) throws -> F {
    if entry.isAsync { throw requiresAwait(feature, context: context, entry: entry, at: location) }
    // An observed tree's loads take a path of their own: an unobserved load pays this one branch.
    if definition.isObserved { return try observedLoad(feature, context: context, entry: entry, at: location) }
    return try loadUnobserved(feature, context: context, entry: entry, at: location, thread: thread)
  }

  /// ``load(_:context:entry:at:thread:)`` in an observed tree: timed, and reported when it ends.
  @usableFromInline @inline(never)
  func observedLoad<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) throws -> F {
    let observation = LoadObservation(feature, entry: entry, in: self, at: location)
    do {
      let instance = try loadUnobserved(feature, context: context, entry: entry, at: location, thread: nil)
      observation.end(failure: nil)
      return instance
    } catch {
      observation.end(failure: error)
      throw error
    }
  }

  /// ``load(_:context:entry:at:thread:)`` without an observer.
  @inlinable @inline(__always)
  func loadUnobserved<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation,
    thread: UncountedReference<LoadingThread>?
  ) throws -> F {
    try (thread ?? LoadingThread.currentReference).borrow { thread in
      let parent = thread.top
      let depth = parent.map { $0.pointee.depth &+ 1 } ?? 0
      // On a long path, the check hashes the context, and the frame is indexed with that hash.
      let contextHash = parent != nil ? try thread.checkCycle(feature, in: self, context: context, at: location) : 0
      // The context and the frame stay on this call's stack, where the path reads them in place.
      return try InPlace.with(context) { framedContext in
        let frame = LoadFrame(
          feature: feature, branch: ObjectIdentifier(self), context: framedContext.erased,
          location: location, parent: parent, identity: BranchAnchor.identity(anchor), depth: depth)
        return try InPlace.with(frame) { frame in
          thread.top = frame
          if depth >= LoadingThread.shallowDepth {
            thread.indexDeepFrame(frame, of: feature, context: context, hashedAs: contextHash)
          }
          defer {
            if depth >= LoadingThread.shallowDepth { thread.unindexDeepFrame(frame) }
            thread.top = parent
          }
          do {
            return try entry.payload.known(as: Loader<F>.self).borrow { loader in
              // A loader never sees its requester's current features (keeping them would leak the
              // requester's branch into a cached instance); only pay for the task-local when there are some.
              guard Features.hasCurrentInTask else { return try loader(context, loaderFeatures) }
              return try Features.withCurrentInTask(loaderFeatures) { try loader(context, loaderFeatures) }
            }
          } catch {
            throw loadingFailed(feature, entry: entry, cause: error, thread: thread, at: location)
          }
        }
      }
    }
  }

  /// The error of a synchronous request that would have to run an async loader.
  ///
  /// When the task is inside the async load of this very request (an async loader awaited a
  /// feature whose synchronous loader requests it back), awaiting could never help: that is a
  /// cycle, reported with the whole path.
  @usableFromInline
  func requiresAwait<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) -> any Error {
    if let cycle = AsyncFrame.cycle(feature, context: context, in: self, at: location) { return cycle }
    return FeatureRequiresAwait(feature, binding: entry.binding.object, in: self, at: location)
  }

  /// The error a failed loader becomes: a cycle passes through as it is, since it already names
  /// the whole loop; anything else is wrapped with this load's diagnostic.
  @usableFromInline
  func loadingFailed<F: Feature>(
    _ feature: F.Type, entry: FeatureTable.EntryReference, cause: any Error, thread: LoadingThread,
    at location: SourceLocation
  ) -> any Error {
    if let cycle = cause as? CircularDependency { return cycle }
    return FeatureLoadingFailed(
      feature, binding: entry.binding.object, cause: cause, in: self,
      path: Array(thread.frames.dropLast()), at: location)
  }

  /// The error of a request that waited for another request's load, which failed with `failure`:
  /// the same cause, with this request's own site and path (a cycle stays as it is).
  func waitedForFailedLoad<F: Feature>(
    _ feature: F.Type, binding: Binding, failure: any Error, path: [LoadStep], at location: SourceLocation
  ) -> any Error {
    // A cycle already names the whole loop, and reaches every request as it is.
    if failure is CircularDependency { return failure }
    let cause = (failure as? FeatureLoadingFailed).flatMap { $0.feature == feature ? $0.cause : nil } ?? failure
    return FeatureLoadingFailed(feature, binding: binding, cause: cause, in: self, path: path, at: location)
  }

  /// ``loadSlotted(_:context:entry:at:)`` in the branch `depth` levels up.
  ///
  /// Out of line: an uncounted reference made on the inlined path would count as an escape of
  /// `self`, and the optimiser would then retain `self` around every cached read.
  @inlinable @inline(never)
  func loadSlotted<F: Feature>(
    up depth: Int, _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference,
    at location: SourceLocation
  ) throws -> F {
    try ancestorReference(depth).borrow { owner in
      try owner.loadSlotted(feature, context: context, entry: entry, at: location)
    }
  }

  /// Loads a cacheable without a context once, however many requests race for it.
  ///
  /// The first request claims the empty slot with a compare-and-exchange, runs the loader without
  /// holding any lock, and publishes the instance with an exchange. A request that finds the slot
  /// claimed waits for that load, or finds a cycle (see ``waitForSlot(_:_:entry:found:thread:at:)``).
  /// Specialised for `F` (the first request of every cacheable takes it), with the rare paths out
  /// of line.
  @inlinable
  func loadSlotted<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) throws -> F {
    // An async loader's unit is claimed under `state` by the async path, never by this protocol;
    // what it loaded may be in an overflow block, which the inlined read does not look at.
    if entry.isAsync {
      if let instance = unit(word: entry.unitWord, giveOut: false)?.instance(feature, at: entry.instanceOffset) {
        return instance
      }
      return try loadHeld(feature, context: context, entry: entry, at: location)
    }
    // Instances that expire are held under the lock, where a request can tell their age.
    if entry.expires { return try loadHeld(feature, context: context, entry: entry, at: location) }
    // In this branch's own storage unless it was given out after the branch was made.
    let unit = storage.unit(entry) ?? unit(word: entry.unitWord, giveOut: true)!
    let unitState = unit.state
    // Loaded already (a unit in an overflow block is read here): a plain load, not a claim that
    // would take the unit's cache line from the other readers.
    if let instance = unit.instance(feature, at: entry.instanceOffset) { return instance }
    let thread = LoadingThread.currentReference
    claiming: while true {
      switch unitState.claim(for: thread) {
      case .claimed:
        break claiming
      case .loaded:
        return unit.storedInstance(feature, at: entry.instanceOffset)
      case .loading(let owner):
        try waitForLoad(feature, of: unitState, owner: owner, entry: entry, thread: thread, at: location)
      case .relocated:
        return try loadHeld(feature, context: context, entry: entry, at: location)
      }
    }
    // After the claim: a close that starts now finds the claim and waits for this load, and one
    // that started before is seen here (both are sequentially consistent).
    if isClosed {
      let error = closed(resolving: feature, at: location)
      settle(unitState, of: feature, loaded: false, outcome: .failure(error))
      throw error
    }
    let instance: F
    let records = thread.borrow { $0.beginCachingLoad() }
    do {
      instance = try load(feature, context: context, entry: entry, at: location, thread: thread)
    } catch {
      thread.borrow { if $0.endCachingLoad(from: records) { $0.dropDependencies(from: records) } }
      settle(unitState, of: feature, loaded: false, outcome: .failure(error))
      throw error
    }
    unit.store(instance, at: entry.instanceOffset)
    // Recorded before the load ends, so that a close waiting for it finds the teardown, and a
    // renewal what the instance was built from.
    if entry.hasTeardown { recordTeardown(instance, context: nil, entry: entry) }
    thread.borrow {
      if $0.endCachingLoad(from: records) { recordLoad(feature, receivedOn: $0, from: records) }
    }
    settle(unitState, of: feature, loaded: true, outcome: .success(self))  // waiters read the unit again
    return instance
  }

  /// Ends the load of `unit`, `feature`'s: publishes the instance (or empties the unit after a
  /// failure, which is not cached), and hands the outcome to the requests waiting for it.
  @usableFromInline
  func settle(
    _ unit: UnitState, of feature: any Feature.Type, loaded: Bool,
    outcome: @autoclosure () -> Result<AnyObject, any Error>
  ) {
    guard loaded else {
      // A failure empties the unit, which another request may claim at once, and be waited for
      // under the same key: the unit is emptied and this load's waiters taken in one critical
      // section, so that they are never confused with the next load's.
      let inFlight = state.withLock { state -> (any LoadInFlight)? in
        guard unit.settle(loaded: false) else { return nil }
        return state.loads.finish(LoadKey(feature: ObjectIdentifier(feature), context: nil))
      }
      (inFlight as? InFlight)?.finish(outcome())
      return
    }
    // A loaded unit is never claimed again, so no other load can be waited for under its key.
    guard unit.settle(loaded: true) else { return }
    // A waiter marked the load and tracked it in the table under the lock, in one critical section.
    let inFlight = state.withLock { $0.loads.finish(LoadKey(feature: ObjectIdentifier(feature), context: nil)) }
    (inFlight as? InFlight)?.finish(outcome())
  }

  /// Waits for the load of `owner` that claimed `unit`.
  ///
  /// A claim of this very thread means the request comes from inside that load: a cycle.
  ///
  /// It returns once the load ended, and the caller looks at the unit again: there it finds the
  /// instance, or an empty unit to claim if the load failed before this request could wait for it.
  @usableFromInline
  func waitForLoad<F: Feature>(
    _ feature: F.Type, of unit: UnitState, owner: UncountedReference<LoadingThread>, entry: FeatureTable.EntryReference,
    thread reference: UncountedReference<LoadingThread>, at location: SourceLocation
  ) throws {
    let thread = reference.object
    if owner == reference {
      throw CircularDependency(thread.frames, closingWith: feature, in: self, at: location)
    }
    guard let inFlight = inFlight(of: unit, feature) else { return }
    _ = try wait(for: inFlight, feature, entry: entry, thread: thread, at: location)
  }

  /// Blocks `thread` until `inFlight`, a load of `feature` that another request owns, ends.
  ///
  /// - Returns: What the load hands its waiters: a `Box<F>` of the instance, or, for a unit's load,
  ///   the branch (the waiter reads the unit again).
  /// - Throws: The load's failure, with this request's site and path, or the cycle that waiting
  ///   would close.
  func wait<F: Feature>(
    for inFlight: InFlight, _ feature: F.Type, entry: FeatureTable.EntryReference, thread: LoadingThread,
    at location: SourceLocation
  ) throws -> AnyObject {
    switch inFlight.wait(as: thread) {
    case .finished(.success(let outcome)):
      return outcome
    case .finished(.failure(let error)):
      throw waitedForFailedLoad(
        feature, binding: entry.binding.object, failure: error, path: thread.frames, at: location)
    case .deadlock(let ownerFrames):
      throw CircularDependency(ownerFrames + thread.frames, closingWith: feature, in: self, at: location)
    }
  }

  /// The load in progress in `unit`, `feature`'s, marked waited and tracked in the branch's
  /// ``LoadTable`` for its owner to finish when it ends; `nil` when it ended meanwhile. What a
  /// request, or a close, waits for.
  func inFlight(of unit: UnitState, _ feature: any Feature.Type) -> InFlight? {
    let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
    return state.withLock { state -> InFlight? in
      switch unit.markWaited() {
      case .ended:
        return nil
      case .alreadyWaited:
        return state.loads.inFlight(of: key) as? InFlight
      case .marked(let owner):
        let inFlight = InFlight(owner: owner.object)
        state.loads.track(key, inFlight)
        return inFlight
      }
    }
  }

  /// ``loadKeyed(_:context:entry:key:at:)`` of a cacheable without a context whose instances this
  /// branch holds under its lock (they expire, or were renewed), from the inlined load.
  @usableFromInline
  func loadHeld<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) throws -> F {
    try loadKeyed(
      feature, context: context, entry: entry, key: LoadKey(feature: ObjectIdentifier(feature), context: nil),
      at: location)
  }

  /// Loads a cacheable once per key, however many requests race for it, through the branch's
  /// ``LoadTable``: a multiton's instance for one context, or an instance the branch holds under
  /// its lock (see ``holds(_:entry:in:)``). An expired one is renewed first, with its dependents.
  ///
  /// The first request owns the load and runs the loader without holding a lock; the others wait
  /// for its outcome. A failure is handed to those waiting and not cached.
  func loadKeyed<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, key: LoadKey,
    at location: SourceLocation
  ) throws -> F {
    let multiton = key.context == nil ? nil : multiton(feature, word: entry.unitWord)
    if let multiton {
      if let instance = multiton.cached(context) { return instance }
      try requireContextEqualToItself(context, of: multiton, entry: entry.pointer.pointee, at: location)
    }
    var expired = false
    if entry.isAsync {
      // Only the async path loads it: a synchronous request reads what that path cached.
      let instance = state.withLock {
        cached(feature, key: key, entry: entry.pointer.pointee, multiton: multiton, context, in: &$0, expired: &expired)
      }
      if expired { Renewal.renewExpired(key, in: self) }
      if let instance { return instance }
      throw requiresAwait(feature, context: context, entry: entry, at: location)
    }
    makePathIfTethered()
    let thread = LoadingThread.current
    var instance: F?
    let claim = state.withLock { state in
      let isOpen = !isClosed
      if isOpen {
        instance = cached(
          feature, key: key, entry: entry.pointer.pointee, multiton: multiton, context, in: &state, expired: &expired)
      }
      return state.loads.claim(key, isOpen: isOpen, isCached: instance != nil) { InFlight(owner: thread) }
    }
    // The lookup let an expired instance go: its dependents go now, before a new one loads.
    if expired { Renewal.renewExpired(key, in: self) }
    switch claim {
    case .refused:
      throw closed(.resolving(feature), at: location)
    case .cached:
      return instance!
    case .join(let load):
      let box = try wait(
        for: load as! InFlight, feature, entry: entry, thread: thread, at: location)
      return UncountedReference.cast(box, to: Box<F>.self).value
    case .own(let load):
      let owned = load as! InFlight
      do {
        let (instance, dependencies) = try thread.caching {
          try self.load(feature, context: context, entry: entry, at: location)
        }
        state.withLock { state in
          cache(
            instance, key: key, context: context, entry: entry.pointer.pointee, multiton: multiton,
            dependencies: dependencies, in: &state)
          state.loads.finish(key)
        }
        owned.finish(.success(Box(instance)))
        return instance
      } catch {
        _ = state.withLock { $0.loads.finish(key) }
        owned.finish(.failure(error))
        throw error
      }
    }
  }

  /// Throws, wrapped as a failed load, when `context` is not equal to itself: `multiton` could
  /// never find its instance again, and every request would load another.
  func requireContextEqualToItself<F: Feature>(
    _ context: F.Context, of multiton: Multiton<F>, entry: FeatureTable.Entry, at location: SourceLocation
  ) throws {
    guard !multiton.hashing.equal(context, context) else { return }
    throw FeatureLoadingFailed(
      F.self, binding: entry.binding.object,
      cause: FeatureContextNotEqualToItself(F.self, context: context, at: location), in: self,
      path: LoadingThread.currentPath, at: location)
  }

  /// The instance cached under `key`: held here, or in `multiton`'s table. Call under the lock,
  /// with its `state`; an expired held instance is let go of and `expired` set, for the caller to
  /// renew it once out of the lock (``renewExpired(_:)``).
  func cached<F: Feature>(
    _ feature: F.Type, key: LoadKey, entry: FeatureTable.Entry, multiton: Multiton<F>?,
    _ context: F.Context, in state: inout State, expired: inout Bool
  ) -> F? {
    if holds(key, entry: entry, in: state) { return heldInstance(feature, key: key, in: &state, expired: &expired) }
    guard let multiton else { return cached(feature, entry: entry) }
    return multiton.cached(context)
  }

  /// Caches `instance`, just loaded under `key` from `dependencies`, with its teardown: held here
  /// if the branch holds the key's instances, otherwise in `multiton`'s table, or in place. Call
  /// under the lock, with its `state`, after ``makePathIfTethered()``: in the critical section that
  /// finishes the load, so that a close that finds no load in flight finds the teardown.
  func cache<F: Feature>(
    _ instance: F, key: LoadKey, context: F.Context, entry: FeatureTable.Entry, multiton: Multiton<F>?,
    dependencies: [Dependency], in state: inout State
  ) {
    let binding = entry.binding.object
    if holds(key, entry: entry, in: state) {
      hold(
        instance, key: key, context: multiton == nil ? nil : context, binding: binding, dependencies: dependencies,
        in: &state)
      return
    }
    if let multiton {
      multiton.lock.withLock { multiton.insert(instance, for: context, in: &$0) }
    } else {
      publish(Box(instance), entry: entry)
    }
    if entry.hasTeardown {
      record(PendingTeardown(of: instance, context: multiton == nil ? nil : context, binding: binding), in: &state)
    }
    state.held.record(key, dependencies: dependencies)
  }

  // MARK: Held instances

  /// Records that the instance just cached here under `key` was built from `dependencies`.
  func recordLoad(_ key: LoadKey, dependencies: [Dependency]) {
    guard !dependencies.isEmpty else { return }
    state.withLock { $0.held.record(key, dependencies: dependencies) }
  }

  /// Records what the load of `feature` (a cacheable without a context), just cached here,
  /// received on `thread`, from `start` in its records: from the inlined load.
  @usableFromInline
  func recordLoad<F: Feature>(_ feature: F.Type, receivedOn thread: LoadingThread, from start: Int) {
    recordLoad(
      LoadKey(feature: ObjectIdentifier(feature), context: nil), dependencies: thread.takeDependencies(from: start))
  }

  /// Whether the instances of `key` (an entry of this branch's scope) are held under the lock:
  /// they expire, or were renewed since the first was cached in place. Call under the lock, with
  /// its `state`.
  func holds(_ key: LoadKey, entry: FeatureTable.Entry, in state: State) -> Bool {
    if entry.expires { return true }
    if key.context != nil { return state.held.relocated.contains(key) }
    guard let word = entry.unitWord, let unit = unit(word: word, giveOut: false) else { return false }
    return unit.state.isRelocated
  }

  /// The instance held under `key` in `state`, unless it expired: an expired one is let go of and
  /// `expired` set, for the caller to renew it once out of the lock (``renewExpired(_:)``).
  func heldInstance<F: Feature>(_ feature: F.Type, key: LoadKey, in state: inout State, expired: inout Bool) -> F? {
    switch state.held.instance(for: key, now: definition.renewals.now) {
    case .found(let box): return UncountedReference.cast(box, to: Box<F>.self).value
    case .expired: expired = true
    case .missing: break
    }
    return nil
  }

  /// Holds `instance`, just loaded under `key`, with its teardown and what it was built from. Call
  /// under the lock, after ``makePathIfTethered()``.
  func hold<F: Feature>(
    _ instance: F, key: LoadKey, context: F.Context?, binding: Binding, dependencies: [Dependency],
    in state: inout State
  ) {
    let now = definition.renewals.now()
    state.held.instances[key] = HeldInstances.Held(
      box: Box(instance), loadedAt: now, expiresAt: binding.registration.timeToLive.map { now + $0 })
    if binding.registration.teardown != nil {
      record(PendingTeardown(of: instance, context: context, binding: binding), in: &state)
    }
    state.held.record(key, dependencies: dependencies)
  }
}
