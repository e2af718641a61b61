import Synchronization

/// What the renewals of one tree share: the clock instances age on, and the turn refreshes take.
///
/// Made with the root's definition and carried by every definition of the tree, as its observer is.
package final class TreeRenewals: Sendable {
  /// The time since the tree was made, on the clock the root was given.
  let now: @Sendable () -> Duration
  /// Whether a refresh is running, and the refreshes waiting for their turn.
  private let turn = Lock<Turn>.make(Turn())

  private struct Turn {
    var isTaken = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  /// The turn a refresh holds, seen by the work it runs (its teardowns): a refresh made there is
  /// part of it, and runs in its turn instead of waiting for it to end, which it never would.
  private final class HeldTurn: Sendable {
    let renewals: ObjectIdentifier
    let isHeld = Atomic<Bool>(true)

    init(_ renewals: TreeRenewals) {
      self.renewals = ObjectIdentifier(renewals)
    }
  }

  @TaskLocal private static var heldTurn: HeldTurn?

  /// Counts the renewal passes of every tree in the process. A load reads it before each request it
  /// makes; a pass forgets instances, then moves it on, so a request that read an earlier count may
  /// have received an instance the pass forgot, and one that read a later count cannot have.
  private static let passes = Atomic<UInt64>(0)

  /// Renewals measured on `clock`.
  package init<C: Clock>(clock: C) where C.Duration == Duration {
    let start = clock.now
    now = { start.duration(to: clock.now) }
  }

  /// Renewals measured on a `ContinuousClock`: what a root has unless it is given a clock.
  package convenience init() {
    self.init(clock: ContinuousClock())
  }

  /// The passes that ended so far: what a load reads before a request it makes.
  static var epoch: UInt64 { passes.load(ordering: .acquiring) }

  /// Ends a renewal pass that forgot instances.
  ///
  /// - Returns: The pass's epoch: a request that read an epoch below it may have received an instance
  ///   the pass forgot.
  static func endPass() -> UInt64 {
    passes.add(1, ordering: .acquiringAndReleasing).newValue
  }

  /// Runs `body` once no other refresh of the tree runs: refreshes renew one after another. A
  /// refresh made while the caller's task holds the turn (by a teardown a refresh runs) runs at once.
  func inTurn<R>(_ body: () async throws -> R) async rethrows -> R {
    if let held = Self.heldTurn, held.renewals == ObjectIdentifier(self), held.isHeld.load(ordering: .acquiring) {
      return try await body()
    }
    await withCheckedContinuation { continuation in
      let isFree = turn.withLock { turn in
        if !turn.isTaken {
          turn.isTaken = true
          return true
        }
        turn.waiters.append(continuation)
        return false
      }
      if isFree { continuation.resume() }
    }
    let held = HeldTurn(self)
    defer {
      held.isHeld.store(false, ordering: .releasing)
      // The turn passes straight to the next waiter, which finds it taken for itself.
      let next = turn.withLock { turn -> CheckedContinuation<Void, Never>? in
        guard !turn.waiters.isEmpty else {
          turn.isTaken = false
          return nil
        }
        return turn.waiters.removeFirst()
      }
      next?.resume()
    }
    return try await Self.$heldTurn.withValue(held) { try await body() }
  }
}
