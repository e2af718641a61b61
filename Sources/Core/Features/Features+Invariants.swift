extension Features {
  /// A test hook: every invariant of this branch's storage that does not hold (see
  /// ``Branch/invariantViolations(quiescent:)``); empty when all hold, or when the branch is gone.
  ///
  /// - Parameter quiescent: Whether no request is in progress anywhere in the tree, so that no
  ///   unit may be mid-load.
  package func invariantViolations(quiescent: Bool = true) -> [String] {
    (try? withBranch(at: SourceLocation()) { $0.invariantViolations(quiescent: quiescent) }) ?? []
  }
}
