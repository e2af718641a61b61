/// Validation found problems in a tree: thrown by ``FeaturesValidation/check()``.
///
/// Its diagnostic has every problem as a cause, each with its own tree.
///
/// ```
/// FeaturesValidationFailed: 2 problems in the features tree
/// ├─ because: FeatureUndefined: no implementation of Printer
/// │  ...
/// └─ because: FeaturesScopeUnchecked: RequestScope was not checked
///    ...
/// ```
public struct FeaturesValidationFailed: DiagnosticError {
  /// Every problem validation found.
  public let problems: [any DiagnosticError]
  /// Its notes on loaders: those it could check only in part, and those whose scope it checked
  /// below another scope than the one that defines it.
  public let notes: [FeaturesValidation.Note]
  /// Every problem, as causes.
  public let diagnostic: Diagnostic

  init(problems: [any DiagnosticError], notes: [FeaturesValidation.Note]) {
    self.problems = problems
    self.notes = notes
    var diagnostic = Diagnostic(
      kind: "FeaturesValidationFailed",
      message: "\(problems.count) \(problems.count == 1 ? "problem" : "problems") in the features tree",
      causes: problems.map(\.diagnostic))
    if !notes.isEmpty {
      diagnostic.notes.append(.init("notes", notes.map(\.description).joined(separator: "\n")))
    }
    diagnostic.fix = "fix each problem below; validation reports them all at once"
    self.diagnostic = diagnostic
  }
}
