/// `Features.current()` was read outside any `withCurrent` block.
///
/// ```
/// CurrentFeaturesUndefined: no current features in this task
/// ├─ requested at: App/Handler.swift:12
/// └─ fix: run this code inside features.withCurrent { ... } (a detached task does not inherit it),
///         or pass the Features explicitly
/// ```
public struct CurrentFeaturesUndefined: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(at location: SourceLocation) {
    diagnostic = Diagnostic(
      kind: "CurrentFeaturesUndefined", message: "no current features in this task", location: location,
      fix: "run this code inside features.withCurrent { ... } (a detached task does not inherit it),"
        + "\nor pass the Features explicitly")
  }
}
