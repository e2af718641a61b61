/// One renewal: the instances it forgot, in the order it forgot them (each after what it was built
/// from), and the epoch of the pass that forgot each.
struct Renewal {
  private(set) var forgotten: [ForgottenInstance]
  /// When each forgotten instance was forgotten: the epoch its pass ended at, or `.max` while the
  /// pass runs (any request may then have received it).
  private var epochs: [CachedInstance: UInt64]

  init(_ target: ForgottenInstance) {
    forgotten = [target]
    epochs = [target.instance: .max]
    endPass()
  }

  /// The epoch of the pass that forgot the instance this renewal started with.
  var targetEpoch: UInt64 { epochs[forgotten[0].instance] ?? 0 }

  /// Whether a load that received `dependency` may have received an instance this renewal forgot.
  private func isStale(_ dependency: Dependency) -> Bool {
    guard let forgottenAt = epochs[dependency.instance] else { return false }
    return dependency.epoch < forgottenAt
  }

  /// Forgets, in `branches` (parents first), every cached instance whose load received one this
  /// renewal forgot, directly or through others: one pass.
  ///
  /// - Returns: Whether another pass is needed, after the loads in flight end: this one forgot
  ///   instances, or found one whose load is still caching it.
  @discardableResult
  mutating func forgetDependents(in branches: [Branch]) -> Bool {
    let count = forgotten.count
    var isCaching = false
    // A closing branch tears its own instances down.
    for branch in branches where !branch.isClosed {
      // In the order they were cached: an instance comes after those it was built from.
      let records = branch.existingState?.withLock { $0.held.records } ?? []
      for record in records where record.dependencies.contains(where: isStale) {
        // A load records what it received just before it publishes the instance.
        guard let instance = ForgottenInstance(forgetting: record.key, in: branch) else {
          isCaching = true
          continue
        }
        forgotten.append(instance)
        epochs[instance.instance] = .max
      }
    }
    if forgotten.count > count { endPass() }
    return forgotten.count > count || isCaching
  }

  /// Ends the pass that forgot the instances still marked `.max`.
  private mutating func endPass() {
    let epoch = TreeRenewals.endPass()
    for (instance, forgottenAt) in epochs where forgottenAt == .max { epochs[instance] = epoch }
  }

  /// How a renewal ended: what it renewed, dependents first, and the teardowns that failed.
  struct Ended {
    let renewed: [RenewedInstance]
    let failures: [TeardownFailed.Failure]
  }
}

extension Renewal {
  /// Renews the instance of `feature` for `context` in the branch that caches it for `branch`,
  /// with every instance built from it, as ``Features/refresh(_:context:file:line:)`` does.
  static func refresh<F: Feature>(
    _ feature: F.Type, context: F.Context, through branch: Branch, at location: SourceLocation
  ) async throws -> [RenewedInstance] {
    if let overrides = branch.overrides, overrides.replaces(feature) { return [] }
    guard let entry = branch.table.entry(for: FeatureTable.key(feature)) else {
      if let overrides = branch.overrides, overrides.resolvesPlaceholders { return [] }
      throw FeatureUndefined(feature, in: branch, at: location)
    }
    guard case .serves = entry.kind else {
      throw FeatureRegistrationConflict(entry.binding.object, in: branch, at: location)
    }
    guard entry.keeping.isCached else {
      throw FeatureNotRenewable(feature, binding: entry.binding.object, in: branch, at: location)
    }
    let owner = branch.ancestor(entry.depth)
    let key = LoadKey(feature, context: context)
    return try await branch.definition.renewals.inTurn {
      if branch.isClosed { throw FeaturesClosed(.refreshing(feature), through: branch, requestedAt: location) }
      guard let target = ForgottenInstance(forgetting: key, in: owner) else { return [] }
      let renewal = await Renewal(target).end(through: Subtree(openFrom: owner), cause: .refresh(location))
      if !renewal.failures.isEmpty { throw TeardownFailed(renewal.failures, renewing: owner.path, at: location) }
      return renewal.renewed
    }
  }

  /// Renews an expired instance held in `branch` under `key`, which a request let go of and now
  /// loads anew: its dependents are forgotten at once, and the teardowns run in a task of their
  /// own, whose failures are reported.
  static func renewExpired(_ key: LoadKey, in branch: Branch) {
    guard let target = ForgottenInstance(forgetting: key, in: branch, isLetGo: true) else { return }
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
    let subtree = Subtree(openFrom: branch)
    renewal.forgetDependents(in: subtree.branches)
    _ = LifecycleWork.detachedFromLoads {
      let ended = await renewal.end(through: subtree, cause: .expired)
      guard !ended.failures.isEmpty else { return }
      IssueReporting.report(
        Diagnostic(describing: TeardownFailed(ended.failures, renewing: branch.path, at: nil)), severity: .failure)
    }
  }

  /// Ends this renewal in `subtree`: forgets the dependents it has not found yet (loads in flight
  /// may still record some), then tears down what it forgot, dependents first.
  private consuming func end(through subtree: Subtree, cause: RenewalEvent.Cause) async -> Ended {
    let start = ContinuousClock.now
    // A load in flight may have received an instance the renewal forgot: once it ends, its record
    // says so. A load is lifecycle work, which never waits for a renewal: each ends.
    repeat {
      for branch in subtree.branches {
        for load in branch.loadsInFlight() { await load.ended() }
      }
    } while forgetDependents(in: subtree.branches)
    let forgotten = forgotten
    // In a task of its own, which nobody cancels: a teardown never starts cancelled.
    let failures = await LifecycleWork.detachedFromLoads {
      var failures: [TeardownFailed.Failure] = []
      for forgotten in forgotten.reversed() {
        if let teardown = forgotten.teardown, let failure = await teardown.run(in: forgotten.branch) {
          failures.append(failure)
        }
        forgotten.teardownRan()
      }
      return failures
    }.value
    let renewed = forgotten.reversed().map(RenewedInstance.init)
    subtree.branches[0].definition.observer?.renewed(
      RenewalEvent(cause: cause, renewed: renewed, start: start, duration: .now - start, failures: failures.count))
    return Ended(renewed: renewed, failures: failures)
  }
}

/// A cached instance a renewal let go of: where it was, what loaded it, and the teardown the
/// renewal runs for it instead of its branch's close.
struct ForgottenInstance: @unchecked Sendable {
  // Sendable: immutable.
  let instance: CachedInstance
  /// The branch that cached it, kept alive until its teardown ran.
  let branch: Branch
  let registration: Registration
  /// The instance's context, for a multiton.
  let context: ContextKey?
  let teardown: PendingTeardown?
}

extension ForgottenInstance {
  /// Lets go of the instance `branch` caches under `key`, if there is one: from then on no request
  /// receives it, and the next one loads the feature anew. Its teardown is the renewal's to run.
  ///
  /// - Parameter isLetGo: Whether a lookup let go of the held instance already (it expired).
  init?(forgetting key: LoadKey, in branch: Branch, isLetGo: Bool = false) {
    guard let entry = branch.table.entry(for: key.tableKey)?.pointer.pointee, entry.depth == 0,
      entry.keeping.isCached
    else { return nil }
    branch.makePathIfTethered()
    let unit = entry.unitWord.flatMap { branch.units.unit(word: $0, giveOut: false) }
    let teardown = branch.state.withLock { state -> PendingTeardown?? in
      // Held already (it expires, was renewed before, or a lookup let it go as it expired)?
      var found = isLetGo || state.held.instances.removeValue(forKey: key) != nil
      if !found {
        switch entry.keeping {
        case .inPlace:
          // Its bytes stay for readers still copying them; its later instances are held here.
          found = unit?.state.relocate() == true
        case .perContext:
          // It leaves the multiton's lock-free table; its later instances are held here.
          if let multiton = unit?.state.anyMultiton as? any RenewableMultiton, let context = key.context,
            multiton.retire(context)
          {
            state.held.relocated.insert(key)
            found = true
          }
        case .held, .nowhere:
          break
        }
      }
      guard found else { return nil }
      state.held.removeRecord(of: key)
      // Until the renewal ran it (``ForgottenInstance/teardownRan()``), a close of the branch waits.
      state.held.renewalTeardownsLeft += 1
      return .some(state.teardowns.firstIndex { $0.key == key }.map { state.teardowns.remove(at: $0) })
    }
    guard let teardown else { return nil }
    self.init(
      instance: CachedInstance(branch: ObjectIdentifier(branch), key: key), branch: branch,
      registration: entry.binding.object.registration, context: key.context, teardown: teardown)
  }
}

extension ForgottenInstance {
  /// Counts down the teardowns renewals still owe the branch, and resumes the closes waiting for
  /// them once none is left.
  func teardownRan() {
    for close in branch.state.withLock({ $0.held.renewalTeardownRan() }) { close.resume() }
  }
}
