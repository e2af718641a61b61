import Synchronization

/// What the renewals of one tree share, carried by every definition of the tree.
package final class TreeRenewals: Sendable {
  /// The time since the tree was made, on the clock the root was given.
  let now: @Sendable () -> Duration
  /// Time limits run on it.
  let sleep: @Sendable (Duration) async throws -> Void
  /// Refreshes renew one after another.
  private let turn = Lock<(isHeld: Bool, waiters: [CheckedContinuation<Void, Never>])>.make((false, []))

  /// Counts the renewal passes of every tree in the process. A pass forgets instances, then moves it
  /// on: a request that read an earlier count may have received one it forgot, a later one cannot.
  private static let passes = Atomic<UInt64>(0)

  package init<C: Clock>(clock: C = ContinuousClock()) where C.Duration == Duration {
    let start = clock.now
    now = { start.duration(to: clock.now) }
    sleep = { try await clock.sleep(for: $0) }
  }

  /// What a load reads before a request it makes.
  static var epoch: UInt64 { passes.load(ordering: .acquiring) }

  /// Ends a renewal pass that forgot instances: returns its epoch.
  static func endPass() -> UInt64 {
    passes.add(1, ordering: .acquiringAndReleasing).newValue
  }

  /// A test hook.
  package var refreshesWaitingForTheTurn: Int { turn.withLock { $0.waiters.count } }

  /// A refresh is never lifecycle work, and what it waits for never waits for one: the turn passes on.
  func inTurn<R>(_ body: () async throws -> R) async rethrows -> R {
    await withCheckedContinuation { continuation in
      let wasHeld = turn.withLock { turn in
        let wasHeld = turn.isHeld
        if wasHeld { turn.waiters.append(continuation) } else { turn.isHeld = true }
        return wasHeld
      }
      if !wasHeld { continuation.resume() }
    }
    defer {
      // The turn passes straight to the next waiter, which finds it held for itself.
      let next = turn.withLock { turn -> CheckedContinuation<Void, Never>? in
        turn.isHeld = !turn.waiters.isEmpty
        return turn.isHeld ? turn.waiters.removeFirst() : nil
      }
      next?.resume()
    }
    return try await body()
  }
}
