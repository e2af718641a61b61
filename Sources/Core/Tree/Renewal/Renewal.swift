/// One renewal: what it forgot, each after what it was built from (`Docs/Architecture.md`).
struct Renewal {
  private(set) var forgotten: [ForgottenInstance]
  /// The epoch each forgotten instance's pass ended at; `.max` while it runs.
  private var epochs: [CachedInstance: UInt64]
  /// Closing branches with instances built from forgotten ones: their close tears those down first.
  private var closingWithDependents: [ObjectIdentifier: Branch] = [:]

  init(_ target: ForgottenInstance) {
    forgotten = [target]
    epochs = [target.instance: .max]
    endPass()
  }

  var targetEpoch: UInt64 { epochs[forgotten[0].instance] ?? 0 }

  /// Whether a load that received `dependency` may have received an instance this renewal forgot.
  private func isStale(_ dependency: Dependency) -> Bool {
    guard let forgottenAt = epochs[dependency.instance] else { return false }
    return dependency.epoch < forgottenAt
  }

  /// One pass: forgets, in `branches` (parents first, a closing one's left to its close), every
  /// instance whose load received one forgotten. Returns whether another pass is needed.
  mutating func forgetDependents(in branches: [Branch]) -> Bool {
    let count = forgotten.count
    var isCaching = false
    for branch in branches {
      // In the order they were cached: an instance comes after those it was built from.
      let records = branch.existingState?.withLock { $0.held.records } ?? []
      let stale = records.filter { $0.dependencies.contains(where: isStale) }
      guard !stale.isEmpty else { continue }
      if branch.isClosed {
        closingWithDependents[ObjectIdentifier(branch)] = branch
        continue
      }
      let found = ForgottenInstance.forgetting(stale.map(\.key), in: branch)
      forgotten += found
      for instance in found { epochs[instance.instance] = .max }
      // A load records what it received just before it publishes the instance.
      if found.count < stale.count { isCaching = true }
    }
    if forgotten.count > count { endPass() }
    return forgotten.count > count || isCaching
  }

  private mutating func endPass() {
    let epoch = TreeRenewals.endPass()
    for (instance, forgottenAt) in epochs where forgottenAt == .max { epochs[instance] = epoch }
  }
}

extension Renewal {
  /// What ``Features/refresh(_:context:file:line:)`` does.
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
      // What a load begun before the refresh caches is renewed too; a load never waits for one.
      await owner.loadInFlight(of: key)?.ended()
      guard let target = ForgottenInstance.forgetting([key], in: owner).first else { return [] }
      let renewal = await Renewal(target).end(through: Subtree(from: owner), cause: .refresh(location))
      if !renewal.failures.isEmpty { throw TeardownFailed(renewal.failures, renewing: owner.path, at: location) }
      return renewal.renewed
    }
  }

  /// Renews an expired instance a request now loads anew; its dependents go in a task of their own.
  static func renewExpired(_ key: LoadKey, in branch: Branch) {
    guard let target = ForgottenInstance.forgetting([key], in: branch, isLetGo: true).first else { return }
    let renewal = Renewal(target)
    // A cacheable the request loads for is built on the new instance, not on the expired one.
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

  /// Forgets the dependents loads in flight still record, then tears down all, dependents first.
  private consuming func end(
    through subtree: Subtree, cause: RenewalEvent.Cause
  ) async -> (renewed: [RenewedInstance], failures: [TeardownFailed.Failure]) {
    let start = ContinuousClock.now
    // A load's record says what it received once it ends; a load never waits for a renewal.
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
    return (renewed, failures)
  }

  /// Tears down `forgotten`, deepest branches first, each newest first. A closing branch's close
  /// tears down what was forgotten there, and the renewal goes on once it ended; a close waits only
  /// for teardowns taken while its branch was open, which wait for nothing.
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
        state.lifecycle.isClosed ? nil : state.teardowns.take(Set(numbers[id] ?? []))
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

/// A cached instance a renewal let go of, and the number its teardown is owed under, if any.
struct ForgottenInstance: Sendable {
  let instance: CachedInstance
  /// The branch that cached it, kept alive until the renewal ends.
  let branch: Branch
  let registration: Registration
  let context: ContextKey?
  let teardownNumber: Int?
}

extension ForgottenInstance {
  /// Lets go of those of `keys` that `branch` caches, in the order of `keys`, in one critical section
  /// (a multiton's table is rebuilt once). Their teardowns stay owed, for the renewal or a close.
  /// `isLetGo`: a lookup let go of the held instance already (it expired).
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
      let hasHeld = !state.held.instances.isEmpty
      var found = keys.map { key in isLetGo || (hasHeld && state.held.instances.removeValue(forKey: key) != nil) }
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
      let forgotten = Set(keys.indices.lazy.filter { found[$0] }.map { keys[$0] })
      state.held.records.removeAll { forgotten.contains($0.key) }
      let numbers = state.teardowns.forget(forgotten)
      return keys.indices.map { index in found[index] ? numbers[keys[index]] ?? -1 : nil }
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
