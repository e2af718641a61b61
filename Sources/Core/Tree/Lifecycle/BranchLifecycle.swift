/// Whether a branch is open, closing or closed: the one owner of who closed it, where, who waits
/// for the close to end, and how it ended.
///
/// A value, kept in the branch's `state` and changed only under its lock. Each event returns what
/// the branch must do outside the lock (resume waiters, run the close); a transition that cannot
/// happen stops the process, since it would mean two closes ran one branch's teardowns. The branch
/// mirrors "not open" in the closed bit of its `slowPathFlags` byte, which the inlined cached read loads
/// anyway; that bit is set in one place, when an event here says so.
///
/// | state | event | next state | action |
/// |---|---|---|---|
/// | open | made under a closing parent | refused | set the closed bit |
/// | open, refused | close starts | closing | set the closed bit, run the close |
/// | closing, closed | close starts | same | wait for the outcome |
/// | closing | wait for the outcome | closing (one more waiter) | suspend |
/// | closed | wait for the outcome | closed | resume with the outcome |
/// | closing | close ends | closed | resume every waiter with the outcome |
///
/// `Waiter` is what a caller suspends with (a continuation in a branch), `Outcome` how a close ended
/// (the teardowns that threw): plain values in tests, which drive it event by event.
package struct BranchLifecycle<Waiter, Outcome> {
  /// Who closed a branch: where `close()` was called, and how many levels above this branch the
  /// branch it was called on is (0 for that branch, more for the descendants it closed).
  package struct Closer: Equatable {
    package let site: SourceLocation
    package let levelsUp: Int

    package init(site: SourceLocation, levelsUp: Int) {
      self.site = site
      self.levelsUp = levelsUp
    }
  }

  package enum State {
    /// Requests, branches and loads go through it.
    case open
    /// Made while its parent was closing: refused to its maker, which drops it at once. No close of
    /// its own started, so its parent's close says who closed it.
    case refused
    /// A close started; its teardowns have not all run. `waiters` are later closes, suspended
    /// until then.
    case closing(Closer, waiters: [Waiter])
    /// Every teardown of the close ran; `outcome` says which threw.
    case closed(Closer, outcome: Outcome)
  }

  package private(set) var state: State = .open

  package init() {}

  /// Whether requests through the branch must fail: in every state but open.
  package var isClosed: Bool {
    if case .open = state { return false }
    return true
  }

  /// Who closed the branch, once a close of its own started.
  package var closer: Closer? {
    switch state {
    case .open, .refused: nil
    case .closing(let closer, _), .closed(let closer, _): closer
    }
  }

  /// What a branch does when a close reaches it.
  package enum StartAction: Equatable {
    /// Set the closed bit and run the close: this caller owns it.
    case run
    /// Another close owns it: wait for its outcome.
    case waitForOutcome
  }

  /// The branch was made while its parent was closing.
  package mutating func madeUnderClosingParent() {
    guard case .open = state else { preconditionFailure("a branch is refused only as it is made, while open") }
    state = .refused
  }

  /// A close reached the branch: `close()` called on it (`levelsUp` 0) or on an ancestor.
  package mutating func startClose(_ closer: Closer) -> StartAction {
    switch state {
    case .open, .refused:
      state = .closing(closer, waiters: [])
      return .run
    case .closing, .closed:
      return .waitForOutcome
    }
  }

  /// What a caller waiting for the outcome of the close does.
  package enum WaitAction {
    /// Suspend: `waiter` is resumed when the close ends.
    case suspend
    /// The close has ended: go on with its outcome.
    case resume(Outcome)
  }

  /// A caller waits for the outcome of the close that started first.
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

  /// The close ended: every teardown ran.
  ///
  /// - Returns: The waiters to resume with `outcome`.
  package mutating func finishClose(with outcome: Outcome) -> [Waiter] {
    guard case .closing(let closer, let waiters) = state else {
      preconditionFailure("a close ends once, after it started")
    }
    state = .closed(closer, outcome: outcome)
    return waiters
  }

  /// Whether the close has ended.
  package var hasEnded: Bool {
    if case .closed = state { return true }
    return false
  }
}
