// Renewing cached instances: what a load received (recorded as it loads, never on the cached path),
// the instances a branch holds under its lock once renewed or when they expire, and the passes that
// forget an instance with every instance built from it.
extension Branch {
  // MARK: Recording what loads receive

  /// Records that the cacheable load running on this thread, or in this task, received the instance
  /// of `feature` for `context` from a request through this branch, its loader's features.
  ///
  /// - Parameters:
  ///   - epoch: ``TreeRenewals/epoch`` as read before the request.
  ///   - thread: This thread's loading state, when the caller has it at hand.
  @usableFromInline
  func recordReceived<F: Feature>(
    _ feature: F.Type, context: F.Context, epoch: UInt64, thread: LoadingThread? = nil
  ) {
    let thread = thread ?? .current
    let asyncLoad = thread.cachingLoads == 0 ? AsyncFrame.currentIfAny?.load : nil
    guard thread.cachingLoads != 0 || asyncLoad != nil,
      let entry = table.entry(for: FeatureTable.key(feature)), case .serves(let lifetime) = entry.kind,
      lifetime.isCached
    else { return }
    let owner = ancestor(entry.depth)
    let key = LoadKey(feature, context: context, isMultiton: lifetime == .cacheablePerContext)
    let dependency = Dependency(instance: CachedInstance(branch: ObjectIdentifier(owner), key: key), epoch: epoch)
    if !thread.record(dependency) { _ = asyncLoad?.record(dependency) }
  }

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

  // MARK: Held instances

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

  /// Runs a cacheable's loader, collecting the cached instances its requests receive.
  func loadCaching<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) throws -> (F, [Dependency]) {
    let thread = LoadingThread.current
    let records = thread.beginCachingLoad()
    do {
      let instance = try load(feature, context: context, entry: entry, at: location)
      return (instance, thread.endCachingLoad(from: records) ? thread.takeDependencies(from: records) : [])
    } catch {
      if thread.endCachingLoad(from: records) { _ = thread.takeDependencies(from: records) }
      throw error
    }
  }

  // MARK: Forgetting

  /// Lets go of the instance cached here under `key`, if there is one: from then on no request
  /// receives it, and the next one loads the feature anew. Its teardown is the caller's to run.
  ///
  /// - Parameter isLetGo: Whether a lookup let go of the held instance already (it expired).
  func forget(_ key: LoadKey, isLetGo: Bool = false) -> ForgottenInstance? {
    guard let entry = table.entry(for: key.tableKey)?.pointer.pointee, entry.depth == 0,
      case .serves(let lifetime) = entry.kind, lifetime.isCached
    else { return nil }
    makePathIfTethered()
    let multiton =
      lifetime == .cacheablePerContext
      ? entry.unitWord.flatMap { unit(word: $0, giveOut: false) }.flatMap {
        $0.state.anyMultiton as? any RenewableMultiton
      } : nil
    return state.withLock { state in
      var found = isLetGo || state.held.instances.removeValue(forKey: key) != nil
      // A multiton's instance leaves its lock-free table; its later instances are held here.
      if !found, let multiton, let context = key.context, multiton.retire(context) {
        state.held.relocated.insert(key)
        found = true
      }
      if !found, lifetime == .cacheable, let word = entry.unitWord, let unit = unit(word: word, giveOut: false) {
        found = unit.state.relocate()
      }
      guard found else { return nil }
      return forgotten(key, binding: entry.binding.object, in: &state)
    }
  }

  /// What a renewal reports of an instance it let go of under `key`, with the teardown it takes
  /// over from the branch's close. Call under the lock.
  private func forgotten(_ key: LoadKey, binding: Binding, in state: inout State) -> ForgottenInstance {
    let teardown = state.teardowns.firstIndex { $0.key == key }.map { state.teardowns.remove(at: $0) }
    state.held.removeRecord(of: key)
    // Until the renewal ran it (``renewalTeardownRan()``), a close of this branch waits.
    state.held.teardownsOfRenewals += 1
    return ForgottenInstance(
      instance: CachedInstance(branch: ObjectIdentifier(self), key: key), branch: self,
      registration: binding.registration, context: key.context, teardown: teardown)
  }

  // MARK: Renewing

  /// Renews the instance of `feature` for `context` in the branch that caches it for this one, with
  /// every instance built from it, as ``Features/refresh(_:context:file:line:)`` does.
  func refresh<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) async throws
    -> [RenewedInstance]
  {
    if let overrides, overrides.replaces(feature) { return [] }
    guard let entry = table.entry(for: FeatureTable.key(feature)) else {
      if let overrides, overrides.resolvesPlaceholders { return [] }
      throw FeatureUndefined(feature, in: self, at: location)
    }
    guard case .serves(let lifetime) = entry.kind else {
      throw FeatureRegistrationConflict(entry.binding.object, in: self, at: location)
    }
    guard lifetime.isCached else {
      throw FeatureNotRenewable(feature, binding: entry.binding.object, in: self, at: location)
    }
    let owner = ancestor(entry.depth)
    let key = LoadKey(feature, context: context, isMultiton: lifetime == .cacheablePerContext)
    return try await definition.renewals.inTurn {
      if isClosed { throw closed(.refreshing(feature), at: location) }
      guard let target = owner.forget(key) else { return [] }
      let renewal = await owner.renew(target, cause: .refresh(location))
      if !renewal.failures.isEmpty { throw TeardownFailed(renewal.failures, renewing: owner.path, at: location) }
      return renewal.renewed
    }
  }

  /// Renews an expired instance held here under `key`, which a request let go of and now loads
  /// anew: its dependents are forgotten at once, and the teardowns run in a task of their own, whose
  /// failures are reported.
  func renewExpired(_ key: LoadKey) {
    guard let target = forget(key, isLetGo: true) else { return }
    var renewal = Renewal(target)
    // The request that found it expired receives the new instance: a cacheable it loads for is
    // built on that one, not on the expired one.
    let renewed = RenewedByRequest(instance: target.instance, epoch: renewal.targetEpoch)
    let thread = LoadingThread.current
    if thread.cachingLoads != 0 {
      thread.renewedByRequest = renewed
    } else {
      _ = AsyncFrame.currentIfAny?.load.note(renewed)
    }
    let subtree = openSubtree()
    renewal.forgetDependents(in: subtree.branches)
    Task {
      let ended = await renew(renewal, subtree: subtree, cause: .expired)
      guard !ended.failures.isEmpty else { return }
      IssueReporting.report(
        Diagnostic(describing: TeardownFailed(ended.failures, renewing: path, at: nil)), severity: .failure)
    }
  }

  /// Renews `target`, just forgotten here: every instance built from it, in this branch or below,
  /// directly or not, is forgotten too, then each is torn down, dependents first.
  func renew(_ target: ForgottenInstance, cause: RenewalEvent.Cause) async -> Renewal.Ended {
    await renew(Renewal(target), subtree: openSubtree(), cause: cause)
  }

  /// Waits until `load` ends. A renewal made inside a load (`waiter`, the innermost load of the
  /// task) waits as that load, through the wait graph: a load that waits, directly or through
  /// others, for `waiter` cannot end before the renewal does, and is not waited for; one that
  /// comes to wait for `waiter` meanwhile fails with the cycle.
  private static func waitForEnd(of load: any LoadInFlight, as waiter: AsyncLoadNode?) async {
    guard let waiter else { return await load.ended() }
    if WaitGraph.add(waiter, waitingFor: load, describeLoop: { _ in true }) != nil { return }
    defer { WaitGraph.remove(waiter, waitingFor: load) }
    await load.ended()
  }

  /// Ends `renewal`: forgets the dependents it has not found yet (loads in flight may still record
  /// some), then tears down what it forgot, dependents first.
  private func renew(_ renewal: Renewal, subtree: Subtree, cause: RenewalEvent.Cause) async -> Renewal.Ended {
    var renewal = renewal
    let start = ContinuousClock.now
    // A load in flight may have received an instance the renewal forgot: once it ends, its record
    // says so. Loads of this task's own path are not waited for: they wait for this renewal.
    let frame = AsyncFrame.currentIfAny
    let ownLoads = frame?.loadsOnPath ?? []
    repeat {
      for branch in subtree.branches {
        for load in branch.loadsInFlight() where !ownLoads.contains(ObjectIdentifier(load)) {
          await Self.waitForEnd(of: load, as: frame?.load)
        }
      }
    } while renewal.forgetDependents(in: subtree.branches)
    var failures: [TeardownFailed.Failure] = []
    // A close that these teardowns make of a branch they tear down in must not wait for them.
    await TreeRenewals.tearingDown(in: Set(renewal.forgotten.map(\.instance.branch))) {
      for forgotten in renewal.forgotten.reversed() {
        if let teardown = forgotten.teardown, let failure = await forgotten.branch.run(teardown) {
          failures.append(failure)
        }
        forgotten.branch.renewalTeardownRan()
      }
    }
    let renewed = renewal.forgotten.reversed().map(RenewedInstance.init)
    definition.observer?.renewed(
      RenewalEvent(cause: cause, renewed: renewed, start: start, duration: .now - start, failures: failures.count))
    return Renewal.Ended(renewed: renewed, failures: failures)
  }

  /// Counts down the teardowns of renewals still to run here, and resumes the closes waiting for
  /// them once none is left.
  func renewalTeardownRan() {
    let closes = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.held.teardownsOfRenewals -= 1
      guard state.held.teardownsOfRenewals == 0 else { return [] }
      defer { state.held.closesWaitingForRenewals = [] }
      return state.held.closesWaitingForRenewals
    }
    for close in closes { close.resume() }
  }

  /// Waits until the renewals that forgot instances here have run their teardowns: a close does,
  /// unless the task runs those teardowns itself (one of them closes this branch).
  func waitForTeardownsOfRenewals() async {
    guard let state = existingState, !TreeRenewals.tearsDown(in: self) else { return }
    await state.suspend(until: { $0.held.teardownsOfRenewals == 0 }, waitingIn: \.held.closesWaitingForRenewals)
  }

  /// This branch and its open descendants, parents first, each held until the subtree is released.
  func openSubtree() -> Subtree {
    var branches: [Branch] = [self]
    var holds: [Branch] = []
    var index = 0
    while index < branches.count {
      let branch = branches[index]
      index += 1
      var children: [Branch] = []
      branch.anchor.borrow { anchor in
        guard anchor.hasChildren else { return }
        anchor.withChildren {
          anchor.forEachChild { child in
            // A closing branch tears its instances down itself.
            if !child.isClosed, let held = child.anchor.borrow({ $0.holdIfAlive() }) { children.append(held) }
          }
        }
      }
      holds += children
      branches += children
    }
    return Subtree(branches: branches, holds: holds)
  }

  /// A branch and its open descendants, parents first, held while a renewal runs through them.
  final class Subtree: @unchecked Sendable {
    // Sendable: immutable.
    let branches: [Branch]
    private let holds: [Branch]

    init(branches: [Branch], holds: [Branch]) {
      self.branches = branches
      self.holds = holds
    }

    deinit {
      for branch in holds { branch.anchor.borrow { $0.release() } }
    }
  }
}

extension Branch {
  /// When the instance of `feature`, a cacheable without a context, that this branch holds under its
  /// lock was loaded and when it expires, with the time now, all on the tree's clock: what
  /// ``Features/which(_:file:line:)`` tells. `nil` when the branch holds none (an instance cached in
  /// place, of a feature without a time-to-live never renewed, has no recorded age).
  func heldAge(of feature: any Feature.Type) -> (loadedAt: Duration, expiresAt: Duration?, now: Duration)? {
    let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
    guard
      let held = existingState?.withLock({ state in
        state.held.instances[key].map { (loadedAt: $0.loadedAt, expiresAt: $0.expiresAt) }
      })
    else { return nil }
    return (held.loadedAt, held.expiresAt, definition.renewals.now())
  }
}
