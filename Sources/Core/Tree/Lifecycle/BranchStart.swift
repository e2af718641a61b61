/// Whether a branch's start (``Features/start(timeout:file:line:isolation:)``) has run: the one
/// owner of its progress and outcome, so that a start runs once however many callers ask.
///
/// A value, kept in the branch's `state` and changed only under its lock; each event returns what
/// the caller does next.
///
/// | state | event | next state | action |
/// |---|---|---|---|
/// | not started | start | starting | run the start |
/// | starting | start | starting | wait for its outcome |
/// | starting | wait | starting, one more waiter | suspend |
/// | started, failed | start or wait | same | return its outcome |
/// | starting | the start ends | started or failed | resume every waiter |
///
/// `Waiter` is what a caller suspends with, `Failure` why a start failed: plain values in tests.
package struct BranchStart<Waiter, Failure> {
  package enum State {
    case notStarted
    case starting(waiters: [Waiter])
    case started
    case failed(Failure)
  }

  package private(set) var state: State = .notStarted

  package init() {}

  /// What a caller of `start()` does.
  package enum Action {
    /// Run the start: this caller owns it.
    case run
    /// Another caller runs it: wait for its outcome.
    case wait
    /// It ended: `nil` when it succeeded.
    case ended(Failure?)
  }

  /// A caller asks for the start.
  package mutating func start() -> Action {
    switch state {
    case .notStarted:
      state = .starting(waiters: [])
      return .run
    case .starting: return .wait
    case .started: return .ended(nil)
    case .failed(let failure): return .ended(failure)
    }
  }

  /// A caller that found the start running waits for it.
  ///
  /// - Returns: `nil` when `waiter` is to be resumed later; otherwise the outcome (`.some(nil)` for
  ///   a start that succeeded).
  package mutating func wait(_ waiter: Waiter) -> Failure?? {
    switch state {
    case .notStarted: preconditionFailure("only a start that found another one running waits")
    case .starting(var waiters):
      waiters.append(waiter)
      state = .starting(waiters: waiters)
      return nil
    case .started: return .some(nil)
    case .failed(let failure): return .some(failure)
    }
  }

  /// The start ended, with `failure` if it failed.
  ///
  /// - Returns: The waiters to resume with the outcome.
  package mutating func finish(_ failure: Failure?) -> [Waiter] {
    guard case .starting(let waiters) = state else { preconditionFailure("a start ends once, after it began") }
    state = failure.map { .failed($0) } ?? .started
    return waiters
  }
}
