import Synchronization

/// What the renewals of one tree share: the clock instances age on, and the turn refreshes take.
///
/// Made with the root's definition and carried by every definition of the tree, as its observer is.
package final class TreeRenewals: Sendable {
  /// The time since the tree was made, on the clock the root was given.
  let now: @Sendable () -> Duration
  /// Sleeps for a duration on the clock the root was given: time limits run on it.
  let sleep: @Sendable (Duration) async throws -> Void
  /// Whether a refresh holds the turn, and the refreshes waiting for it, in the order they asked.
  private let turn = Lock<(isHeld: Bool, waiters: [CheckedContinuation<Void, Never>])>.make((false, []))

  /// Counts the renewal passes of every tree in the process. A load reads it before each request it
  /// makes; a pass forgets instances, then moves it on, so a request that read an earlier count may
  /// have received an instance the pass forgot, and one that read a later count cannot have.
  private static let passes = Atomic<UInt64>(0)

  /// Renewals measured on `clock`.
  package init<C: Clock>(clock: C) where C.Duration == Duration {
    let start = clock.now
    now = { start.duration(to: clock.now) }
    sleep = { try await clock.sleep(for: $0) }
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

  /// How many refreshes wait for the turn: a test hook.
  package var refreshesWaitingForTheTurn: Int { turn.withLock { $0.waiters.count } }

  /// Runs `body`, a refresh, once no other refresh of the tree runs: refreshes renew one after
  /// another. A refresh is never lifecycle work, and what it waits for (loads, teardowns) never
  /// waits for a refresh, so the turn always passes on.
  func inTurn<R>(_ body: () async throws -> R) async rethrows -> R {
    await withCheckedContinuation { continuation in
      let isFree = turn.withLock { turn in
        guard turn.isHeld else {
          turn.isHeld = true
          return true
        }
        turn.waiters.append(continuation)
        return false
      }
      if isFree { continuation.resume() }
    }
    defer {
      // The turn passes straight to the next waiter, which finds it held for itself.
      let next = turn.withLock { turn -> CheckedContinuation<Void, Never>? in
        guard !turn.waiters.isEmpty else {
          turn.isHeld = false
          return nil
        }
        return turn.waiters.removeFirst()
      }
      next?.resume()
    }
    return try await body()
  }
}
