/// The instance of `F` a branch caches under one key of its ``LoadTable``, other than in a unit it
/// claims without a lock: a multiton's instance for one context, or an instance the branch holds
/// under its lock (it expires, or was renewed since its first instance was cached in place).
///
/// Where such an instance is looked up and cached, and how the synchronous request loads it
/// (``load(through:at:)``); ``AsyncRequest`` loads it asynchronously through the same lookups.
struct KeyedLoad<F: Feature>: @unchecked Sendable {
  // Sendable: immutable; the branch, the multiton and contexts are `Sendable`, and the entry is
  // the registry's, which never changes.
  let branch: Branch
  let entry: FeatureTable.Entry
  let context: F.Context
  let key: LoadKey
  /// The multiton whose lock-free table caches the instance, for a feature cached per context.
  let multiton: Multiton<F>?

  /// The load of `feature` for `context` in `branch`, whose scope registers it as `entry`.
  init(_ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, in branch: Branch) {
    self.branch = branch
    self.entry = entry
    self.context = context
    key = LoadKey(feature, context: context)
    switch entry.keeping {
    case .perContext: multiton = branch.units.multiton(feature, word: entry.unitWord!)
    case .inPlace, .held, .nowhere: multiton = nil
    }
  }

  /// The instance of `entry`'s feature for `context` in `branch`, if cached where a read takes no
  /// lock (a multiton's table, or a unit): checked before a ``KeyedLoad`` is made, whose key boxes a
  /// multiton's context.
  static func instanceWithoutLock(_ context: F.Context, entry: FeatureTable.Entry, in branch: Branch) -> F? {
    switch entry.keeping {
    case .inPlace: return branch.units.cached(F.self, entry: entry)
    case .perContext: return branch.units.multiton(F.self, word: entry.unitWord!).cached(context)
    case .held, .nowhere: return nil
    }
  }

  /// The multiton's instance for the context, read without a lock, if it has one.
  ///
  /// - Throws: A failed load, when the context is not equal to itself: the multiton could never
  ///   find its instance again, and every request would load another.
  func multitonInstance(at location: SourceLocation) throws -> F? {
    guard let multiton else { return nil }
    if let instance = multiton.cached(context) { return instance }
    guard !multiton.hashing.equal(context, context) else { return nil }
    throw FeatureLoadingFailed(
      F.self, binding: entry.binding.object,
      cause: FeatureContextNotEqualToItself(F.self, context: context, at: location), in: branch,
      path: LoadingThread.currentPath, at: location)
  }

  /// Loads the instance once, however many requests race for it, through the branch's
  /// ``LoadTable``. An expired one is renewed first, with its dependents.
  ///
  /// The first request owns the load and runs the loader (through `reference`, this load's entry)
  /// without holding a lock; the others wait for its outcome. A failure is handed to those waiting
  /// and not cached.
  func load(through reference: FeatureTable.EntryReference, at location: SourceLocation) throws -> F {
    // The claim returns before the loader runs: a chain of multitons that request each other
    // stacks only this frame and the run's per link.
    switch try claim(through: reference, at: location) {
    case .instance(let instance): return instance
    case .own(let owned): return try run(owned, through: reference, at: location)
    }
  }

  /// What a request's claim of the key came to.
  private enum Claim {
    /// The cached instance, or the one the load it waited for cached.
    case instance(F)
    /// The request owns the load: it runs the loader.
    case own(InFlight)
  }

  /// Looks the instance up, or claims its load, or waits for the load of another request.
  private func claim(through reference: FeatureTable.EntryReference, at location: SourceLocation) throws -> Claim {
    if let instance = try multitonInstance(at: location) { return .instance(instance) }
    var expired = false
    if entry.isAsync || (entry.loadsOnMainActor && !MainQueue.isCurrent()) {
      // Only the async path loads it, or only a request on the main actor: this request reads what
      // they cached.
      let instance = branch.state.withLock { cached(in: &$0, expired: &expired) }
      if expired { Renewal.renewExpired(key, in: branch) }
      if let instance { return .instance(instance) }
      if entry.isAsync {
        throw FeatureRequiresAwait.orCycle(F.self, context: context, entry: reference, in: branch, at: location)
      }
      throw FeatureRequiresMainActor(F.self, binding: entry.binding.object, in: branch, at: location)
    }
    branch.makePathIfTethered()
    let thread = LoadingThread.current
    var instance: F?
    let claim = branch.state.withLock { state in
      let isOpen = !branch.isClosed
      if isOpen { instance = cached(in: &state, expired: &expired) }
      return state.loads.claim(key, isOpen: isOpen, isCached: instance != nil) { InFlight(owner: thread) }
    }
    // The lookup let an expired instance go: its dependents go now, before a new one loads.
    if expired { Renewal.renewExpired(key, in: branch) }
    switch claim {
    case .refused:
      throw FeaturesClosed(.resolving(F.self), through: branch, requestedAt: location)
    case .cached:
      return .instance(instance!)
    case .join(let load):
      let box = try (load as! InFlight).outcome(
        of: F.self, waitingAs: thread, binding: entry.binding.object, in: branch, at: location)
      return .instance(UncountedReference.cast(box, to: Box<F>.self).value)
    case .own(let load):
      return .own(load as! InFlight)
    }
  }

  /// Runs the loader of the load this request owns (`owned`), and caches what it loaded with the
  /// cached instances its loader received, finishing the load in the same critical section.
  private func run(_ owned: InFlight, through reference: FeatureTable.EntryReference, at location: SourceLocation)
    throws -> F
  {
    let loaded: Loaded<F>
    do {
      loaded = try branch.load(F.self, context: context, entry: reference, at: location)
    } catch {
      finish(owned, .failure(error))
      throw error
    }
    finish(owned, .success(loaded))
    return loaded.instance
  }

  /// Ends the load this request owns (`owned`): caches what it loaded, if it succeeded, with what
  /// its loader received, and finishes it in the table in the same critical section.
  private func finish(_ owned: InFlight, _ outcome: Result<Loaded<F>, any Error>) {
    branch.state.withLock { state in
      if case .success(let loaded) = outcome { cache(loaded.instance, dependencies: loaded.received, in: &state) }
      _ = state.loads.finish(key)
    }
    owned.finish(outcome.map { Box($0.instance) as AnyObject })
  }

  /// The instance cached under the key: held by the branch, in the multiton's table, or in place.
  /// Call under the branch's lock, with its `state`; an expired held instance is let go of and
  /// `expired` set, for the caller to renew it once out of the lock
  /// (``Renewal/renewExpired(_:in:)``).
  func cached(in state: inout Branch.State, expired: inout Bool) -> F? {
    if isHeld(in: state) {
      switch state.held.instance(for: key, now: branch.definition.renewals.now) {
      case .found(let box): return UncountedReference.cast(box, to: Box<F>.self).value
      case .expired: expired = true
      case .missing: break
      }
      return nil
    }
    guard let multiton else { return branch.units.cached(F.self, entry: entry) }
    return multiton.cached(context)
  }

  /// Caches `instance`, just loaded from `dependencies`, with its teardown: held by the branch if
  /// it holds the key's instances, otherwise in the multiton's table, or in place. Call under the
  /// branch's lock, with its `state`, after ``Branch/makePathIfTethered()``: in the critical section
  /// that finishes the load, so that a close that finds no load in flight finds the teardown.
  func cache(_ instance: F, dependencies: [Dependency], in state: inout Branch.State) {
    let binding = entry.binding.object
    var teardown: Int?
    if entry.hasTeardown {
      teardown = PendingTeardown(of: instance, context: key.context == nil ? nil : context, binding: binding)
        .record(in: branch, state: &state)
    }
    if isHeld(in: state) {
      let now = branch.definition.renewals.now()
      state.held.instances[key] = HeldInstances.Held(
        box: Box(instance), loadedAt: now, expiresAt: binding.registration.timeToLive.map { now + $0 },
        teardown: teardown, hasRecord: !dependencies.isEmpty)
    } else if let multiton {
      // A multiton's feature has a context (`Lifetime.cacheablePerContext`), so its key has one.
      multiton.lock.withLock { multiton.insert(instance, for: context, key: key.context!, in: &$0) }
    } else {
      branch.units.publish(Box(instance), entry: entry)
    }
    state.held.record(key, dependencies: dependencies, teardown: teardown)
  }

  /// Whether the branch holds the key's instances under its lock: they expire, or were renewed
  /// since the first was cached in place. Call under the lock, with its `state`.
  private func isHeld(in state: Branch.State) -> Bool {
    switch entry.keeping {
    case .held: return true
    case .perContext: return state.held.relocated.contains(key)
    case .inPlace:
      guard let word = entry.unitWord, let unit = branch.units.unit(word: word, giveOut: false) else { return false }
      return unit.state.isRelocated
    case .nowhere: return false
    }
  }
}
