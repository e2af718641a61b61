extension Features {
  /// A test hook: every invariant of this branch's storage that does not hold (see
  /// ``Branch/invariantViolations(quiescent:)``); empty when all hold, or when the branch is gone.
  ///
  /// - Parameter quiescent: Whether no request is in progress anywhere in the tree, so that no
  ///   unit may be mid-load.
  package func invariantViolations(quiescent: Bool = true) -> [String] {
    (try? withBranch(at: SourceLocation()) { $0.invariantViolations(quiescent: quiescent) }) ?? []
  }

  /// A test hook: who waits in this branch now (see ``Branch/waits``); nothing when the branch is
  /// gone.
  package var waits: (requestsForLoads: Int, closesForLoads: Int, closesForTheClose: Int) {
    (try? withBranch(at: SourceLocation()) { $0.waits }) ?? (0, 0, 0)
  }

  /// A test hook: how many closes of this branch wait for renewals to tear down what they forgot
  /// here; none when the branch is gone.
  package var closesWaitingForRenewals: Int {
    (try? withBranch(at: SourceLocation()) { $0.existingState?.withLock { $0.held.closesWaitingForRenewals.count } })
      .flatMap { $0 } ?? 0
  }
}
