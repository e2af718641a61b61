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
        guard let instance = branch.forget(record.key) else {
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
