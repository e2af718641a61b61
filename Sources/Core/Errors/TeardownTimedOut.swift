/// A teardown passed the `teardownTimeLimit` of its registration: the close reported it in
/// ``TeardownFailed`` (with the feature and its branch) and went on without waiting for it.
///
/// ```
/// TeardownTimedOut: the teardown did not end within 5 s
/// └─ fix: find what the teardown waits for, or give it a longer teardownTimeLimit where it is registered
/// ```
public struct TeardownTimedOut: DiagnosticError {
  /// The limit it passed.
  public let limit: Duration
  /// What passed the limit, and how to fix it.
  public let diagnostic: Diagnostic

  package init(limit: Duration) {
    self.limit = limit
    diagnostic = Diagnostic(
      kind: "TeardownTimedOut", message: "the teardown did not end within \(limit.rendered)",
      fix: "find what the teardown waits for, or give it a longer teardownTimeLimit where it is registered")
  }
}
