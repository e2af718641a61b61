import Synchronization

/// What the renewals of one tree share: the clock instances age on, and the turn refreshes take.
///
/// Made with the root's definition and carried by every definition of the tree, as its observer is.
///
/// The turn is a node of the ``WaitGraph``: a teardown waiting for it waits for the refresh that
/// holds it, whichever that is by then, so a loop through a refresh that waits for the teardown is
/// found, however often the turn passed on meanwhile.
package final class TreeRenewals: WaitGraph.Node, Sendable {
  /// The time since the tree was made, on the clock the root was given.
  let now: @Sendable () -> Duration
  /// The refresh that holds the turn, and the refreshes waiting for it.
  private let turn = Lock<Turn>.make(Turn())

  private struct Turn {
    /// The refresh running, if any.
    var holder: WaitGraph.Run?
    /// The refreshes waiting for the turn, in the order they asked, each resumed when it holds it.
    var waiters: [(run: WaitGraph.Run, continuation: CheckedContinuation<Void, Never>)] = []
  }

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

  /// The turn is never done with: a wait for it blocks while a refresh holds it.
  var isFinished: Bool { false }

  /// A wait for the turn waits for the refresh holding it.
  var waitsImplicitlyFor: (any WaitGraph.Node)? { turn.withLock { $0.holder } }

  /// How many refreshes wait for the turn: a test hook.
  package var refreshesWaitingForTheTurn: Int { turn.withLock { $0.waiters.count } }

  /// Whether the task runs inside a refresh's turn (its teardowns, or a refresh they make).
  @TaskLocal private static var holdsTurn = false

  /// Runs `body`, the refresh `run`, once no other refresh of the tree runs: refreshes renew one
  /// after another.
  ///
  /// A refresh made where waiting for the turn could wait for itself runs at once: from inside a
  /// refresh's turn (a teardown that refreshes), from inside a load (which a refresh holding the
  /// turn may be waiting for), or from a close's or a renewal's teardown whose wait for the turn
  /// would close a loop in the ``WaitGraph`` (the refresh holding it waits, through others, for
  /// that teardown).
  func inTurn<R>(as run: WaitGraph.Run, _ body: () async throws -> R) async rethrows -> R {
    if Self.holdsTurn || AsyncFrame.currentIfAny != nil { return try await body() }
    // Recorded before the turn is asked for (the graph's lock is never taken under the turn's):
    // a loop through the refresh holding the turn, now or once it passed on, is found by whichever
    // wait closes it.
    let waiter = ClosesInTask.waitingAs
    if let waiter, ClosesInTask.recordWait(of: waiter, for: self) { return try await body() }
    await withCheckedContinuation { continuation in
      let isFree = turn.withLock { turn in
        guard turn.holder != nil else {
          turn.holder = run
          return true
        }
        turn.waiters.append((run, continuation))
        return false
      }
      if isFree { continuation.resume() }
    }
    if let waiter { WaitGraph.remove(waiter, waitingFor: self) }
    defer {
      // The turn passes straight to the next waiter, which finds it held for itself.
      let next = turn.withLock { turn -> CheckedContinuation<Void, Never>? in
        guard !turn.waiters.isEmpty else {
          turn.holder = nil
          return nil
        }
        let next = turn.waiters.removeFirst()
        turn.holder = next.run
        return next.continuation
      }
      next?.resume()
    }
    return try await Self.$holdsTurn.withValue(true) { try await body() }
  }
}
