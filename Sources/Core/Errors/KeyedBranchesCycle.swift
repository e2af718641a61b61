/// A key's branch was requested from its own making: from the context closure of a
/// ``KeyedBranches``, directly or through another key's branch that closure requests.
///
/// The branch does not exist until its context does, so the request could only wait for itself.
///
/// ```
/// KeyedBranchesCycle: cannot branch SessionScope for "ann": the request is part of making that very branch
/// ├─ requested at: App/Sessions.swift:12
/// └─ fix: make the context without the key's own branch: a context closure, and the branches it requests, run before that branch exists
/// ```
public struct KeyedBranchesCycle: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init<Scope: FeaturesScope>(_ scope: Scope.Type, key: some Sendable, requestedAt location: SourceLocation) {
    diagnostic = Diagnostic(
      kind: "KeyedBranchesCycle",
      message:
        "cannot branch \(scope.name) for \(String(reflecting: key)): the request is part of making that very branch",
      location: location,
      fix:
        "make the context without the key's own branch: a context closure, and the branches it requests, run before that branch exists"
    )
  }
}
