/// One renewal: the instances it forgot, in the order it forgot them (each after what it was built
/// from), the epoch of the pass that forgot each, and the closing branches that hold instances built
/// from them.
struct Renewal {
  private(set) var forgotten: [ForgottenInstance]
  /// When each forgotten instance was forgotten: the epoch its pass ended at, or `.max` while the
  /// pass runs (any request may then have received it).
  private var epochs: [CachedInstance: UInt64]
  /// Closing branches that hold instances built from forgotten ones: their close tears those down,
  /// and the renewal tears down what they were built from after it.
  private var closingWithDependents: [ObjectIdentifier: Branch] = [:]

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
  /// renewal forgot, directly or through others: one pass. A closing branch's are left to its close.
  ///
  /// - Returns: Whether another pass is needed, after the loads in flight end: this one forgot
  ///   instances, or found one whose load is still caching it.
  mutating func forgetDependents(in branches: [Branch]) -> Bool {
    let count = forgotten.count
    var isCaching = false
    for branch in branches {
      // In the order they were cached: an instance comes after those it was built from.
      let records = branch.existingState?.withLock { $0.held.records.values } ?? []
      let stale = records.filter { $0.dependencies.contains(where: isStale) }
      guard !stale.isEmpty else { continue }
      if branch.isClosed {
        closingWithDependents[ObjectIdentifier(branch)] = branch
        continue
      }
      let found = ForgottenInstance.forgetting(stale.map(\.key), in: branch)
      for instance in found {
        forgotten.append(instance)
        epochs[instance.instance] = .max
      }
      // A load records what it received just before it publishes the instance.
      if found.count < stale.count { isCaching = true }
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
      // A load in flight began before this refresh: what it caches is renewed too. A load never
      // waits for a refresh, so this wait ends.
      await owner.loadInFlight(of: key)?.ended()
      guard let target = ForgottenInstance(forgetting: key, in: owner) else { return [] }
      let renewal = await Renewal(target).end(through: Subtree(from: owner), cause: .refresh(location))
      if !renewal.failures.isEmpty { throw TeardownFailed(renewal.failures, renewing: owner.path, at: location) }
      return renewal.renewed
    }
  }

  /// Renews an expired instance held in `branch` under `key`, which a request let go of and now
  /// loads anew. The request pays for that one instance: its dependents are forgotten, and the
  /// teardowns run, in a task of their own, whose failures are reported.
  static func renewExpired(_ key: LoadKey, in branch: Branch) {
    guard let target = ForgottenInstance(forgetting: key, in: branch, isLetGo: true) else { return }
    let renewal = Renewal(target)
    // The request that found it expired receives the new instance: a cacheable it loads for is
    // built on that one, not on the expired one.
    let renewed = RenewedByRequest(instance: target.instance, epoch: renewal.targetEpoch)
    let thread = LoadingThread.current
    if thread.cachingLoads != 0 {
      thread.renewedByRequest = renewed
    } else {
      _ = AsyncFrame.currentIfAny?.load.note(renewed)
    }
    _ = LifecycleWork.detachedFromLoads {
      let ended = await renewal.end(through: Subtree(from: branch), cause: .expired)
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
    let (forgotten, closing) = (forgotten, closingWithDependents)
    // In a task of its own, which nobody cancels: a teardown never starts cancelled.
    let failures = await LifecycleWork.detachedFromLoads {
      await Self.tearDown(forgotten, in: subtree, after: closing)
    }.value
    let renewed = forgotten.reversed().map(RenewedInstance.init)
    subtree.branches[0].definition.observer?.renewed(
      RenewalEvent(cause: cause, renewed: renewed, start: start, duration: .now - start, failures: failures.count))
    return Ended(renewed: renewed, failures: failures)
  }

  /// Tears down `forgotten` branch by branch, each after the branches below it, in each newest
  /// first: an instance after every instance built from it. A closing branch's own close tears down
  /// what the renewal forgot there, in its order, and the renewal goes on above it once that close
  /// ended; so does a branch in `closing`, which holds instances built from forgotten ones.
  ///
  /// No close waits for a renewal: a close runs the teardowns left owed in its branch, and waits only
  /// for those a renewal took from it while it was open, which run without waiting for anything.
  private static func tearDown(
    _ forgotten: [ForgottenInstance], in subtree: Subtree, after closing: [ObjectIdentifier: Branch]
  ) async -> [TeardownFailed.Failure] {
    var numbers: [ObjectIdentifier: [Int]] = [:]
    for instance in forgotten {
      if let number = instance.teardownNumber { numbers[ObjectIdentifier(instance.branch), default: []].append(number) }
    }
    var failures: [TeardownFailed.Failure] = []
    for branch in subtree.branches.reversed() {
      let id = ObjectIdentifier(branch)
      guard numbers[id] != nil || closing[id] != nil else { continue }
      let taken = branch.state.withLock { state in
        state.lifecycle.isClosed ? nil : state.teardowns.take(numbers[id] ?? [])
      }
      guard let taken else {
        _ = await CloseRemainder.outcomeOfFirstClose(of: branch)
        continue
      }
      guard !taken.isEmpty else { continue }
      for teardown in taken.reversed() {
        if let failure = await teardown.run(in: branch) { failures.append(failure) }
      }
      for close in branch.state.withLock({ $0.teardowns.takenRan() }) { close.resume() }
    }
    return failures
  }
}

/// A cached instance a renewal let go of: where it was, what loaded it, and the number its teardown
/// is owed under in its branch, if it has one.
struct ForgottenInstance: Sendable {
  let instance: CachedInstance
  /// The branch that cached it, kept alive until the renewal ends.
  let branch: Branch
  let registration: Registration
  /// The instance's context, for a multiton.
  let context: ContextKey?
  let teardownNumber: Int?
}

extension ForgottenInstance {
  /// Lets go of the instance `branch` caches under `key`, if there is one: from then on no request
  /// receives it, and the next one loads the feature anew. Its teardown stays owed in the branch,
  /// for the renewal or the branch's close to run.
  ///
  /// - Parameter isLetGo: Whether a lookup let go of the held instance already (it expired).
  init?(forgetting key: LoadKey, in branch: Branch, isLetGo: Bool = false) {
    guard let forgotten = Self.forgetting([key], in: branch, isLetGo: isLetGo).first else { return nil }
    self = forgotten
  }

  /// Lets go of the instances `branch` caches under `keys`, those it has, in one critical section:
  /// a multiton's table is rebuilt once for all its contexts.
  ///
  /// - Returns: The instances let go of, in the order of `keys`.
  static func forgetting(_ keys: [LoadKey], in branch: Branch, isLetGo: Bool = false) -> [ForgottenInstance] {
    let entries = keys.map { key in
      (branch.table.entry(for: key.tableKey)?.pointer.pointee).flatMap { entry in
        entry.depth == 0 && entry.keeping.isCached ? entry : nil
      }
    }
    guard entries.contains(where: { $0 != nil }) else { return [] }
    branch.makePathIfTethered()
    let units = entries.map { entry in entry?.unitWord.flatMap { branch.units.unit(word: $0, giveOut: false) } }
    let numbers = branch.state.withLock { state -> [Int?]? in
      // Held already (it expires, was renewed before, or a lookup let it go as it expired)?
      var found = keys.map { isLetGo || state.held.instances.removeValue(forKey: $0) != nil }
      var contextsByMultiton: [ObjectIdentifier: (multiton: any RenewableMultiton, contexts: Set<ContextKey>)] = [:]
      for (index, key) in keys.enumerated() where !found[index] {
        switch entries[index]?.keeping {
        case .inPlace?:
          // Its bytes stay for readers still copying them; its later instances are held here.
          found[index] = units[index]?.state.relocate() == true
        case .perContext?:
          // It leaves the multiton's lock-free table; its later instances are held here.
          if let multiton = units[index]?.state.anyMultiton as? any RenewableMultiton, let context = key.context {
            contextsByMultiton[ObjectIdentifier(multiton), default: (multiton, [])].contexts.insert(context)
          }
        case .held?, .nowhere?, nil:
          break
        }
      }
      var retired: Set<ContextKey> = []
      for (multiton, contexts) in contextsByMultiton.values { retired.formUnion(multiton.retire(contexts)) }
      for (index, key) in keys.enumerated() where !found[index] {
        if let context = key.context, retired.contains(context) {
          state.held.relocated.insert(key)
          found[index] = true
        }
      }
      return keys.indices.map { index in
        guard found[index] else { return nil }
        state.held.records.remove(keys[index])
        return state.teardowns.forget(keys[index]) ?? -1
      }
    }
    return keys.indices.compactMap { index in
      guard let number = numbers?[index], let entry = entries[index] else { return nil }
      return ForgottenInstance(
        instance: CachedInstance(branch: ObjectIdentifier(branch), key: keys[index]), branch: branch,
        registration: entry.binding.object.registration, context: keys[index].context,
        teardownNumber: number < 0 ? nil : number)
    }
  }
}
