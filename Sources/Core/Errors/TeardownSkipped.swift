/// A branch was released without ``Features/close(file:line:isolation:)`` while it cached instances with a
/// teardown: those teardowns never ran.
///
/// Arbor tears nothing down implicitly (a teardown is `async`, and may throw: a release cannot
/// await it or report its failure), so it reports the skipped teardowns through the issue reporter
/// (``IssueReporting``): a test failure in tests, the installed reporter (or standard error)
/// otherwise.
///
/// ```
/// TeardownSkipped: a branch was released without close(): 1 teardown never ran
/// ├─ scope: Root › SessionScope(Session(user: "ann"))
/// ├─ never torn down: Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)
/// └─ fix: close the branch before releasing it: call close() on it when its work ends,
///         or make it with withBranch(...), which closes it when its body ends
/// ```
///
/// A root released without `close()` is told to close on shutdown instead:
///
/// ```
/// └─ fix: close the root before releasing it: try await root.close() when the app shuts down
/// ```
package struct TeardownSkipped: DiagnosticError {
  /// The features whose instances were not torn down, newest first.
  package let features: [any Feature.Type]
  /// What was skipped, in which branch, and how to fix it.
  package let diagnostic: Diagnostic

  init(_ skipped: [PendingTeardown], in path: ScopePath?) {
    let skipped = Array(skipped.reversed())
    features = skipped.map(\.feature)
    let count = skipped.count == 1 ? "1 teardown" : "\(skipped.count) teardowns"
    diagnostic = Diagnostic(
      kind: "TeardownSkipped", message: "a branch was released without close(): \(count) never ran",
      scope: path?.diagnosticSteps ?? [],
      notes: [.init("never torn down", skipped.map(\.described).joined(separator: "\n"))],
      fix: Self.fix(isRoot: path.map { $0.parent == nil } ?? false))
  }

  /// How to close what was released: a root on shutdown, any other branch when its work ends.
  static func fix(isRoot: Bool) -> String {
    isRoot
      ? "close the root before releasing it: try await root.close() when the app shuts down"
      : "close the branch before releasing it: call close() on it when its work ends,"
        + "\nor make it with withBranch(...), which closes it when its body ends"
  }
}
