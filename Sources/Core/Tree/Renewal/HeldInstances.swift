import Synchronization

/// The instances a branch holds under its lock rather than in place: those of features with a
/// time-to-live, and those renewed since their first instance was cached, whose readers take the
/// lock. With them, the records of which cached instances were built from which, for renewals.
///
/// A value in the branch's `state`, changed only under its lock.
struct HeldInstances {
  /// One held instance, and when it was loaded and expires on the tree's clock.
  struct Held {
    /// A `Box<F>` of the feature's instance.
    let box: AnyObject
    let loadedAt: Duration
    let expiresAt: Duration?
  }

  /// The held instances by key.
  var instances: [LoadKey: Held] = [:]
  /// The multiton contexts renewed since their first instance, which left the multiton's
  /// lock-free table: their instances are held here from then on. (A cacheable without a context
  /// says so in its unit's word.)
  var relocated: Set<LoadKey> = []
  /// The cached instances (in place or held) whose loads received others, in the order they were
  /// cached.
  var records: [LoadRecord] = []
  /// The teardowns of renewals that forgot instances here and have not run yet, an entry per
  /// renewal: a close waits for them, so that every instance is torn down when it returns.
  var teardownsOfRenewals: [RenewalTeardowns] = []
  /// The closes waiting for those teardowns.
  var closesWaitingForRenewals: [CheckedContinuation<Void, Never>] = []

  /// The teardowns one renewal still has to run in a branch, as a close of that branch waits for
  /// them in the ``WaitGraph``: finished once they all ran, though the renewal may go on elsewhere
  /// (so a close its later teardowns make of the branch is no loop).
  final class RenewalTeardowns: WaitGraph.Node, Sendable {
    let run: WaitGraph.Run
    /// How many are left: changed under the branch's lock, read by the graph without it.
    private let left = Atomic<Int>(0)

    init(_ run: WaitGraph.Run) {
      self.run = run
    }

    var isFinished: Bool { left.load(ordering: .sequentiallyConsistent) == 0 }

    /// They run in the renewal's task, one after another: they wait for what it waits for.
    var waitsImplicitlyFor: (any WaitGraph.Node)? { run }

    fileprivate func add() {
      left.add(1, ordering: .sequentiallyConsistent)
    }

    /// - Returns: Whether none is left.
    fileprivate func remove() -> Bool {
      left.subtract(1, ordering: .sequentiallyConsistent).newValue == 0
    }
  }

  /// Records a teardown `run` owes here.
  ///
  /// - Returns: The closes waiting for renewals here, to resume: each looks again, and records its
  ///   wait for `run`.
  mutating func recordTeardown(of run: WaitGraph.Run) -> [CheckedContinuation<Void, Never>] {
    if let teardowns = teardownsOfRenewals.first(where: { $0.run === run }) {
      teardowns.add()
    } else {
      let teardowns = RenewalTeardowns(run)
      teardowns.add()
      teardownsOfRenewals.append(teardowns)
    }
    return takeClosesWaitingForRenewals()
  }

  /// A teardown `run` owed here ran.
  ///
  /// - Returns: The closes waiting for renewals here, to resume: each looks again at those left.
  mutating func teardownRan(of run: WaitGraph.Run) -> [CheckedContinuation<Void, Never>] {
    if let index = teardownsOfRenewals.firstIndex(where: { $0.run === run }), teardownsOfRenewals[index].remove() {
      teardownsOfRenewals.remove(at: index)
    }
    return takeClosesWaitingForRenewals()
  }

  private mutating func takeClosesWaitingForRenewals() -> [CheckedContinuation<Void, Never>] {
    defer { closesWaitingForRenewals = [] }
    return closesWaitingForRenewals
  }

  /// What a lookup of a held instance found.
  enum Lookup {
    case found(AnyObject)
    /// It expired, and was let go of: the caller renews it.
    case expired
    case missing
  }

  /// The instance held under `key`, unless it expired by `now`: an expired one is let go of.
  mutating func instance(for key: LoadKey, now: () -> Duration) -> Lookup {
    guard let held = instances[key] else { return .missing }
    if let expiresAt = held.expiresAt, now() >= expiresAt {
      instances[key] = nil
      return .expired
    }
    return .found(held.box)
  }

  /// Records that the instance just cached under `key` was built from `dependencies`, if any.
  mutating func record(_ key: LoadKey, dependencies: [Dependency]) {
    if !dependencies.isEmpty { records.append(LoadRecord(key: key, dependencies: dependencies)) }
  }

  /// Lets go of the record of the instance cached under `key`, if it has one.
  mutating func removeRecord(of key: LoadKey) {
    if let index = records.firstIndex(where: { $0.key == key }) { records.remove(at: index) }
  }
}
