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
          let instance = unit.state.multitonInstance(feature, for: context)
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
      if let instance = owner.units.cached(feature, entry: entry.pointer.pointee) { return instance }
      return try owner.loadSlotted(feature, context: context, entry: entry, at: location)
    case .serves(.static):
      return entry.payload.known(as: Box<F>.self).borrow { $0.value }
    case .serves(.disposable):
      return try load(feature, context: context, entry: entry, at: location)
    case .serves(.cacheablePerContext):
      let keyed = KeyedLoad(feature, context: context, entry: entry.pointer.pointee, in: ancestor(entry.depth))
      return try keyed.load(through: entry, at: location)
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
    if entry.isAsync {
      throw FeatureRequiresAwait.orCycle(feature, context: context, entry: entry, in: self, at: location)
    }
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
            throw FeatureLoadingFailed.loaderThrew(error, feature, entry: entry, in: self, thread: thread, at: location)
          }
        }
      }
    }
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
  /// claimed waits for that load, or finds a cycle (see ``waitForLoad(_:of:owner:entry:thread:at:)``).
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
      unitState.finishLoad(of: feature, loaded: false, in: self, outcome: .failure(error))
      throw error
    }
    let instance: F
    let records = thread.borrow { $0.beginCachingLoad() }
    do {
      instance = try load(feature, context: context, entry: entry, at: location, thread: thread)
    } catch {
      thread.borrow { if $0.endCachingLoad(from: records) { $0.dropDependencies(from: records) } }
      unitState.finishLoad(of: feature, loaded: false, in: self, outcome: .failure(error))
      throw error
    }
    unit.store(instance, at: entry.instanceOffset)
    // Recorded before the load ends, so that a close waiting for it finds the teardown, and a
    // renewal what the instance was built from.
    if entry.hasTeardown { recordTeardown(instance, entry: entry) }
    thread.borrow {
      if $0.endCachingLoad(from: records) { recordLoad(feature, receivedOn: $0, from: records) }
    }
    unitState.finishLoad(of: feature, loaded: true, in: self, outcome: .success(self))  // waiters read the unit again
    return instance
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
    guard let inFlight = unit.inFlight(feature, tracking: state) else { return }
    _ = try inFlight.outcome(of: feature, waitingAs: thread, binding: entry.binding.object, in: self, at: location)
  }

  /// A ``KeyedLoad`` of a cacheable without a context whose instances this branch holds under its
  /// lock (they expire, or were renewed), or whose loader is async, from the inlined load.
  @usableFromInline
  func loadHeld<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) throws -> F {
    try KeyedLoad(feature, context: context, entry: entry.pointer.pointee, in: self).load(through: entry, at: location)
  }

  /// Records what the load of `feature` (a cacheable without a context), just cached here,
  /// received on `thread`, from `start` in its records: from the inlined load.
  @usableFromInline
  func recordLoad<F: Feature>(_ feature: F.Type, receivedOn thread: LoadingThread, from start: Int) {
    let dependencies = thread.takeDependencies(from: start)
    guard !dependencies.isEmpty else { return }
    let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
    state.withLock { $0.held.record(key, dependencies: dependencies) }
  }
}
