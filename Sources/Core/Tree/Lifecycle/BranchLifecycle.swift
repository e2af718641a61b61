/// Whether a branch is open, closing or closed, who closed it and who waits: its table is in
/// `Docs/Architecture.md` ("Closing a branch"). Each event returns what the branch does outside its
/// lock; an impossible transition stops the process, as two closes would run one branch's teardowns.
package struct BranchLifecycle<Waiter, Outcome> {
  /// Where `close()` was called, and how many levels above this branch (0 for this one).
  package struct Closer: Equatable {
    package let site: SourceLocation
    package let levelsUp: Int

    package init(site: SourceLocation, levelsUp: Int) {
      self.site = site
      self.levelsUp = levelsUp
    }
  }

  package enum State {
    case open
    /// Made while its parent was closing, and dropped by its maker: the parent's close closed it.
    case refused
    /// A close started; `waiters` are later closes, suspended until its teardowns ran.
    case closing(Closer, waiters: [Waiter])
    /// Every teardown ran; `outcome` says which threw.
    case closed(Closer, outcome: Outcome)
  }

  package private(set) var state: State = .open

  package init() {}

  /// Whether requests through the branch fail: in every state but open.
  package var isClosed: Bool { if case .open = state { false } else { true } }

  /// Who closed the branch, once a close of its own started.
  package var closer: Closer? {
    switch state {
    case .open, .refused: nil
    case .closing(let closer, _), .closed(let closer, _): closer
    }
  }

  /// Run the close (and set the closed bit), or wait for the outcome of the one that owns it.
  package enum StartAction: Equatable {
    case run
    case waitForOutcome
  }

  package mutating func madeUnderClosingParent() {
    guard case .open = state else { preconditionFailure("a branch is refused only as it is made, while open") }
    state = .refused
  }

  /// A close reached the branch, from `close()` on it or on an ancestor.
  package mutating func startClose(_ closer: Closer) -> StartAction {
    switch state {
    case .open, .refused:
      state = .closing(closer, waiters: [])
      return .run
    case .closing, .closed:
      return .waitForOutcome
    }
  }

  /// What a caller waiting for the outcome does: suspend until the close ends, or go on with it.
  package enum WaitAction {
    case suspend
    case resume(Outcome)
  }

  package mutating func waitForOutcome(_ waiter: Waiter) -> WaitAction {
    switch state {
    case .open, .refused:
      preconditionFailure("only a close that found another one running waits for its outcome")
    case .closing(let closer, var waiters):
      waiters.append(waiter)
      state = .closing(closer, waiters: waiters)
      return .suspend
    case .closed(_, let outcome):
      return .resume(outcome)
    }
  }

  /// The close ended: returns the waiters to resume with `outcome`.
  package mutating func finishClose(with outcome: Outcome) -> [Waiter] {
    guard case .closing(let closer, let waiters) = state else {
      preconditionFailure("a close ends once, after it started")
    }
    state = .closed(closer, outcome: outcome)
    return waiters
  }

  package var hasEnded: Bool { if case .closed = state { true } else { false } }
}
