extension Features {
  /// A test hook: every invariant of this branch's storage that does not hold (see
  /// ``Branch/invariantViolations(quiescent:)``); empty when all hold, or when the branch is gone.
  ///
  /// - Parameter quiescent: Whether no request is in progress anywhere in the tree, so that no
  ///   unit may be mid-load.
  package func invariantViolations(quiescent: Bool = true) -> [String] {
    (try? withBranch(at: SourceLocation()) { $0.invariantViolations(quiescent: quiescent) }) ?? []
  }

  /// A test hook: who waits in this branch now; nothing when the branch is gone. A test reads it
  /// to know that a request or a close reached its wait before it asserts that something has not
  /// happened yet.
  ///
  /// - `requestsForLoads`: requests waiting for the loads in flight here (for an async load, the
  ///   request that started it too);
  /// - `closesForLoads`: closes waiting for those loads to end;
  /// - `closesForTheClose`: closes waiting for the outcome of the close that started first.
  package var waits: (requestsForLoads: Int, closesForLoads: Int, closesForTheClose: Int) {
    let waits = try? withBranch(at: SourceLocation()) { branch in
      let loads = branch.loadsInFlight().map(\.waits)
      let laterCloses =
        branch.existingState?.withLock { state in
          guard case .closing(_, let waiters) = state.lifecycle.state else { return 0 }
          return waiters.count
        } ?? 0
      return (loads.reduce(0) { $0 + $1.requests }, loads.reduce(0) { $0 + $1.closes }, laterCloses)
    }
    return waits ?? (0, 0, 0)
  }

  /// A test hook: how many closes of this branch wait for renewals to tear down what they forgot
  /// here; none when the branch is gone.
  package var closesWaitingForRenewals: Int {
    (try? withBranch(at: SourceLocation()) {
      $0.existingState?.withLock { $0.teardowns.closesWaitingForRenewals.count }
    })
    .flatMap { $0 } ?? 0
  }

  /// A test hook: how many refreshes of this branch's tree wait for their turn; none when the
  /// branch is gone.
  package var refreshesWaitingForTheTurn: Int {
    (try? withBranch(at: SourceLocation()) { $0.definition.renewals.refreshesWaitingForTheTurn }) ?? 0
  }

  /// A test hook: whether this branch made its lock, which a branch needs only once a load is
  /// waited for, or it loads a multiton, an async or a held instance, or records a teardown; false
  /// when the branch is gone.
  package var hasMadeLock: Bool {
    (try? withBranch(at: SourceLocation()) { $0.existingState != nil }) ?? false
  }
}
