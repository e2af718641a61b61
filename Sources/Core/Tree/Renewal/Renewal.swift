/// One renewal: what it forgot, each after what it was built from (`Docs/Architecture.md`).
struct Renewal {
  private(set) var forgotten: [ForgottenInstance]
  /// The pass that forgot each forgotten instance, an index in `passEnds`.
  private var passes: [CachedInstance: Int]
  /// The epoch each pass ended at; `.max` for the one running.
  private var passEnds: [UInt64] = [.max]
  /// Closing branches with instances built from forgotten ones: their close tears those down first.
  private var closingWithDependents: [ObjectIdentifier: Branch] = [:]

  init(_ target: ForgottenInstance) {
    forgotten = [target]
    passes = [target.instance: 0]
    endPass()
  }

  var targetEpoch: UInt64 { passEnds[0] }

  /// Whether a load that received `dependency` may have received an instance this renewal forgot.
  private func isStale(_ dependency: Dependency) -> Bool {
    guard let pass = passes[dependency.instance] else { return false }
    return dependency.epoch < passEnds[pass]
  }

  /// One pass: forgets, in `branches` (parents first, a closing one's left to its close), every
  /// instance whose load received one forgotten. Returns whether another pass is needed.
  mutating func forgetDependents(in branches: [Branch]) -> Bool {
    let count = forgotten.count
    let pass = passEnds.count - 1
    var isCaching = false
    for branch in branches {
      guard let state = branch.existingState else { continue }
      branch.makePathIfTethered()
      // In the order they were cached: an instance comes after those it was built from.
      let found = state.withLock { state -> (forgotten: [ForgottenInstance], isCaching: Bool)? in
        let stale = state.held.records.indices.filter { index in
          state.held.records[index].dependencies.contains(where: isStale)
        }
        guard !stale.isEmpty else { return ([], false) }
        guard !branch.isClosed else { return nil }
        return ForgottenInstance.forgetting(recordsAt: stale, in: branch, state: &state)
      }
      guard let found else {
        closingWithDependents[ObjectIdentifier(branch)] = branch
        continue
      }
      forgotten += found.forgotten
      passes.reserveCapacity(passes.count + found.forgotten.count)
      for instance in found.forgotten { passes[instance.instance] = pass }
      isCaching = isCaching || found.isCaching
    }
    if forgotten.count > count { endPass() }
    return forgotten.count > count || isCaching
  }

  private mutating func endPass() {
    passEnds[passEnds.count - 1] = TreeRenewals.endPass()
    passEnds.append(.max)
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
      guard let target = ForgottenInstance.forgetting(key, in: owner) else { return [] }
      let renewal = await Renewal(target).end(through: Subtree(from: owner), cause: .refresh(location))
      if !renewal.failures.isEmpty { throw TeardownFailed(renewal.failures, renewing: owner.path, at: location) }
      return renewal.renewed
    }
  }

  /// Renews an expired instance a request now loads anew; its dependents go in a task of their own.
  static func renewExpired(_ key: LoadKey, in branch: Branch) {
    guard let target = ForgottenInstance.forgetting(key, in: branch, isLetGo: true) else { return }
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
    // A branch's path read once for each run of its instances: a pass forgets them together.
    var last: (branch: Branch, path: ScopePath)?
    let renewed = forgotten.reversed().map { instance in
      let path = last.flatMap { $0.branch === instance.branch ? $0.path : nil } ?? instance.branch.path
      last = (instance.branch, path)
      return RenewedInstance(instance, path: path)
    }
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
  /// Lets go of the instance `branch` caches under `key`, if it does; its teardown stays owed, for
  /// the renewal or a close. `isLetGo`: a lookup let go of the held instance already (it expired).
  static func forgetting(_ key: LoadKey, in branch: Branch, isLetGo: Bool = false) -> ForgottenInstance? {
    guard Place(of: key, in: branch) != nil else { return nil }
    branch.makePathIfTethered()
    return branch.state.withLock { state in
      // An instance a lookup found expired says where its record and teardown are: the request
      // that found it pays no search of the branch's records or teardowns.
      let expired = isLetGo ? state.held.expired.removeValue(forKey: key) : nil
      guard let entry = letGo([key], in: branch, state: &state, isLetGo: isLetGo)[0] else { return nil }
      guard let expired else {
        state.held.records.removeAll { $0.key == key }
        return ForgottenInstance(key, entry: entry, in: branch, teardownNumber: state.teardowns.forgetNewest(key))
      }
      if expired.hasRecord { state.held.records.removeAll { $0.key == key } }
      let number = expired.teardown.flatMap { state.teardowns.forget($0) ? $0 : nil }
      return ForgottenInstance(key, entry: entry, in: branch, teardownNumber: number)
    }
  }

  /// Lets go of the instances of `branch`'s records at `indices` (ascending), those it caches,
  /// and drops their records, under its lock with `state`: call ``Branch/makePathIfTethered()``
  /// first. Their teardowns stay owed, for the renewal or a close.
  ///
  /// - Returns: The instances let go of, and whether a record's instance is not cached yet (its load
  ///   records what it received just before it publishes the instance).
  static func forgetting(
    recordsAt indices: [Int], in branch: Branch, state: inout Branch.State
  ) -> (forgotten: [ForgottenInstance], isCaching: Bool) {
    let records = indices.map { state.held.records[$0] }
    let entries = letGo(records.map(\.key), in: branch, state: &state, isLetGo: false)
    var forgotten: [ForgottenInstance] = []
    var dropped: [Int] = []
    for (position, record) in records.enumerated() {
      guard let entry = entries[position] else { continue }
      let number = record.teardown.flatMap { state.teardowns.forget($0) ? $0 : nil }
      forgotten.append(ForgottenInstance(record.key, entry: entry, in: branch, teardownNumber: number))
      dropped.append(indices[position])
    }
    // One pass, keeping the others in load order.
    var kept: [LoadRecord] = []
    kept.reserveCapacity(state.held.records.count - dropped.count)
    var next = 0
    for (index, record) in state.held.records.enumerated() {
      if next < dropped.count && dropped[next] == index { next += 1 } else { kept.append(record) }
    }
    state.held.records = kept
    return (forgotten, forgotten.count < records.count)
  }

  /// Where `branch` keeps the instances of a feature it caches itself: its entry, and its unit if
  /// it was given one.
  private struct Place {
    let entry: FeatureTable.Entry
    let unit: BranchStorage.Unit?

    init?(of key: LoadKey, in branch: Branch) {
      guard let entry = branch.table.entry(for: key.tableKey)?.pointer.pointee,
        entry.depth == 0 && entry.keeping.isCached
      else { return nil }
      self.entry = entry
      unit = entry.unitWord.flatMap { branch.units.unit(word: $0, giveOut: false) }
    }
  }

  private init(_ key: LoadKey, entry: FeatureTable.Entry, in branch: Branch, teardownNumber: Int?) {
    self.init(
      instance: CachedInstance(branch: ObjectIdentifier(branch), key: key), branch: branch,
      registration: entry.binding.object.registration, context: key.context, teardownNumber: teardownNumber)
  }

  /// Lets go of the instances `branch` caches under `keys`, those it caches, under its lock with
  /// `state`: its held instances, its units (relocated) and its multitons' entries (retired), a
  /// feature at a time, each multiton in one call for all its contexts.
  ///
  /// - Returns: For each key, its feature's entry if its instance was let go of.
  private static func letGo(
    _ keys: [LoadKey], in branch: Branch, state: inout Branch.State, isLetGo: Bool
  ) -> [FeatureTable.Entry?] {
    var found = [FeatureTable.Entry?](repeating: nil, count: keys.count)
    // The positions of each feature's keys, in order.
    var features: [(place: Place?, positions: [Int])] = []
    var featureIndices: [ObjectIdentifier: Int] = [:]
    for (position, key) in keys.enumerated() {
      let index: Int
      if let known = featureIndices[key.feature] {
        index = known
      } else {
        index = features.count
        featureIndices[key.feature] = index
        features.append((Place(of: key, in: branch), []))
      }
      features[index].positions.append(position)
    }
    let hasHeld = !state.held.instances.isEmpty
    for (place, positions) in features {
      guard let place else { continue }
      var contexts: [ContextKey] = []
      var contextPositions: [Int] = []
      for position in positions {
        let key = keys[position]
        // Held already (it expires, was renewed before, or a lookup let it go as it expired)?
        if isLetGo || (hasHeld && state.held.instances.removeValue(forKey: key) != nil) {
          found[position] = place.entry
          continue
        }
        switch place.entry.keeping {
        case .inPlace:
          // Its bytes stay for readers still copying them; its later instances are held here.
          if place.unit?.state.relocate() == true { found[position] = place.entry }
        case .perContext:
          if let context = key.context {
            contexts.append(context)
            contextPositions.append(position)
          }
        case .held, .nowhere:
          break
        }
      }
      // Its contexts leave the multiton's lock-free table; their later instances are held here.
      guard !contexts.isEmpty, let multiton = place.unit?.state.anyMultiton as? any RenewableMultiton else { continue }
      for (index, wasThere) in multiton.retire(contexts).enumerated() where wasThere {
        let position = contextPositions[index]
        state.held.relocated.insert(keys[position])
        found[position] = place.entry
      }
    }
    return found
  }
}
