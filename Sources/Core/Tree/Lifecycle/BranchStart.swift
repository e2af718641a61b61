/// Whether a branch's start (``Features/start(timeout:file:line:isolation:)``) has run: the one
/// owner of its progress and outcome, so that a start runs once however many callers ask.
///
/// A value, kept in the branch's `state` and changed only under its lock; each event returns what
/// the caller does next.
///
/// | state | event | next state | action |
/// |---|---|---|---|
/// | not started | start | starting (this caller's run) | run the start |
/// | starting | start | starting | wait for its outcome (the run's) |
/// | starting | wait | starting, one more waiter | suspend |
/// | ended | start or wait | ended | return its outcome |
/// | starting | the start ends | ended | resume every waiter with the outcome |
///
/// `Waiter` is what a caller suspends with, `Outcome` how a start ended: plain values in tests.
package struct BranchStart<Waiter, Outcome> {
  package enum State {
    case notStarted
    case starting(waiters: [Waiter])
    case ended(Outcome)
  }

  package private(set) var state: State = .notStarted

  package init() {}

  /// What a caller of `start()` does.
  package enum Action {
    /// Run the start: this caller owns it.
    case run
    /// Another caller runs it: wait for its outcome.
    case wait
    /// It ended, with this outcome.
    case ended(Outcome)
  }

  /// A caller asks for the start.
  package mutating func start() -> Action {
    switch state {
    case .notStarted:
      state = .starting(waiters: [])
      return .run
    case .starting: return .wait
    case .ended(let outcome): return .ended(outcome)
    }
  }

  /// A caller that found the start running waits for it.
  ///
  /// - Returns: `nil` when `waiter` is to be resumed later; otherwise the outcome.
  package mutating func wait(_ waiter: Waiter) -> Outcome? {
    switch state {
    case .notStarted: preconditionFailure("only a start that found another one running waits")
    case .starting(var waiters):
      waiters.append(waiter)
      state = .starting(waiters: waiters)
      return nil
    case .ended(let outcome): return outcome
    }
  }

  /// The start ended with `outcome`.
  ///
  /// - Returns: The waiters to resume with it.
  package mutating func finish(_ outcome: Outcome) -> [Waiter] {
    guard case .starting(let waiters) = state else { preconditionFailure("a start ends once, after it began") }
    state = .ended(outcome)
    return waiters
  }
}
