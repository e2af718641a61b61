/// A ``KeyedBranches`` was made with a negative `idleTime`.
///
/// Arbor never stops the process for it: the set reports this through ``IssueReporting`` (a test
/// failure in tests, the installed reporter or standard error otherwise) and uses an idle time of
/// zero, the nearest it can honour: a branch no request uses is evicted at the next look.
///
/// ```
/// KeyedBranchesIdleTimeInvalid: idleTime is -5.0 seconds for the branches of SessionScope: it must not be negative
/// ├─ requested at: App/Main.swift:20
/// ├─ instead: the set evicts a branch as soon as no request uses it (an idle time of zero)
/// └─ fix: pass how long a branch may go unused (zero or more), or nil for no limit
/// ```
package struct KeyedBranchesIdleTimeInvalid: DiagnosticError {
  /// The idle time that was passed.
  package let idleTime: Duration
  /// What was passed, where, what the set does instead, and how to fix it.
  package let diagnostic: Diagnostic

  init<Scope: FeaturesScope>(_ scope: Scope.Type, idleTime: Duration, at location: SourceLocation) {
    self.idleTime = idleTime
    diagnostic = Diagnostic(
      kind: "KeyedBranchesIdleTimeInvalid",
      message: "idleTime is \(idleTime) for the branches of \(scope.name): it must not be negative",
      location: location,
      notes: [.init("instead", "the set evicts a branch as soon as no request uses it (an idle time of zero)")],
      fix: "pass how long a branch may go unused (zero or more), or nil for no limit")
  }
}
