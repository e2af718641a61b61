/// A branch was requested from a ``KeyedBranches`` after the set was closed.
///
/// ```
/// KeyedBranchesClosed: cannot branch SessionScope for "ann": the set of its branches is closed
/// ├─ requested at: App/Routes.swift:30
/// ├─ closed at: App/Main.swift:51
/// └─ fix: request branches before the set is closed (close it on shutdown, after the server)
/// ```
public struct KeyedBranchesClosed: DiagnosticError {
  /// What failed, where, where the set was closed, and how to fix it.
  public let diagnostic: Diagnostic

  init<Scope: FeaturesScope>(
    _ scope: Scope.Type, key: some Sendable, closedAt: SourceLocation?, requestedAt location: SourceLocation
  ) {
    var diagnostic = Diagnostic(
      kind: "KeyedBranchesClosed",
      message: "cannot branch \(scope.name) for \(String(reflecting: key)): the set of its branches is closed",
      location: location,
      fix: "request branches before the set is closed (close it on shutdown, after the server)")
    if let closedAt { diagnostic.notes = [.init("closed at", closedAt.description)] }
    self.diagnostic = diagnostic
  }
}
