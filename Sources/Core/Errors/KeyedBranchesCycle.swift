/// A keyed branch was requested from inside a keyed branch's making: from the context closure of a
/// ``KeyedBranches``, or from work it started.
///
/// A making is lifecycle work, and lifecycle work never waits for lifecycle work: a request there
/// could wait for the making it is part of, or for another making that waits for this one. It is
/// refused at once instead.
///
/// ```
/// KeyedBranchesCycle: cannot branch SessionScope for "bob": the request is made inside the making of the SessionScope branch for "ann"
/// ├─ requested at: App/Sessions.swift:12
/// └─ fix: make the context without keyed branches: a context closure, and the work it starts, run before its branch exists;
///         request other keys' branches once the making ended
/// ```
public struct KeyedBranchesCycle: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init<Scope: FeaturesScope>(
    _ scope: Scope.Type, key: some Sendable, inside making: LifecycleWork,
    requestedAt location: SourceLocation
  ) {
    diagnostic = Diagnostic(
      kind: "KeyedBranchesCycle",
      message:
        "cannot branch \(scope.name) for \(String(reflecting: key)): the request is made inside \(making.described)",
      location: location,
      fix:
        "make the context without keyed branches: a context closure, and the work it starts, run before its branch"
        + " exists;\nrequest other keys' branches once the making ended"
    )
  }
}
