/// A ``KeyedBranches`` was made with a `maximumCount` that is not positive.
///
/// Arbor never stops the process for it: the set reports this through ``IssueReporting`` (a test
/// failure in tests, the installed reporter or standard error otherwise) and keeps at most one
/// branch, the smallest bound it can honour.
///
/// ```
/// KeyedBranchesMaximumCountInvalid: maximumCount is 0 for the branches of SessionScope: it must be positive
/// ├─ requested at: App/Main.swift:20
/// ├─ instead: the set keeps at most 1 branch
/// └─ fix: pass how many branches to keep at most (1 or more), or nil for no limit
/// ```
package struct KeyedBranchesMaximumCountInvalid: DiagnosticError {
  /// The count that was passed.
  package let maximumCount: Int
  /// What was passed, where, what the set does instead, and how to fix it.
  package let diagnostic: Diagnostic

  init<Scope: FeaturesScope>(_ scope: Scope.Type, maximumCount: Int, keeping kept: Int, at location: SourceLocation) {
    self.maximumCount = maximumCount
    diagnostic = Diagnostic(
      kind: "KeyedBranchesMaximumCountInvalid",
      message: "maximumCount is \(maximumCount) for the branches of \(scope.name): it must be positive",
      location: location,
      notes: [.init("instead", "the set keeps at most \(kept) branch\(kept == 1 ? "" : "es")")],
      fix: "pass how many branches to keep at most (1 or more), or nil for no limit")
  }
}
