/// A branch could not start: ``Features/start(timeout:file:line:isolation:)`` lists every eager
/// load and before-serving work that failed or passed its time limit, each with its path, and the
/// branch is closed, so that what had started is torn down (once the loads that passed their limit
/// end, if they do).
///
/// ```
/// FeaturesStartFailed: could not start Root: 1 of 3 steps failed
/// ├─ requested at: App/Main.swift:20
/// ├─ scope: Root
/// ├─ fix: fix each cause below, then start a new tree: this one is closed,
/// │       and what had started is torn down
/// └─ cause: FeaturesStartTimedOut: Database did not load within 10 s
///    ├─ path: start() → Database
///    ├─ implementation: Database.live() registered at App/Main.swift:14
///    └─ fix: find what Database.live() waits for, or give it a longer startTimeLimit
/// ```
public struct FeaturesStartFailed: DiagnosticError {
  /// Every step that failed, as causes of one diagnostic, then the close's teardown failures.
  public let diagnostic: Diagnostic

  init(
    _ failures: [Diagnostic], of stepCount: Int, in branch: ScopePath, closing teardown: TeardownFailed?,
    at location: SourceLocation
  ) {
    let steps = stepCount == 1 ? "step" : "steps"
    diagnostic = Diagnostic(
      kind: "FeaturesStartFailed",
      message: "could not start \(branch.rendered): \(failures.count) of \(stepCount) \(steps) failed",
      location: location, scope: branch.diagnosticSteps,
      fix: "fix each cause below, then start a new tree: this one is closed,\nand what had started is torn down",
      causes: failures + (teardown.map { [$0.diagnostic] } ?? []))
  }

  /// The kind of ``timedOut(_:path:limit:implementation:fix:)``'s diagnostic.
  static var timedOutKind: String { "FeaturesStartTimedOut" }

  /// The diagnostic of an eager load or before-serving work that passed its time limit.
  package static func timedOut(
    _ what: String, path: [String], limit: Duration, implementation: Diagnostic.Implementation?, fix: String
  ) -> Diagnostic {
    var diagnostic = Diagnostic(
      kind: timedOutKind, message: "\(what) did not \(implementation == nil ? "end" : "load") within \(limit.rendered)",
      path: path.map { Diagnostic.PathStep(feature: $0) }, fix: fix)
    diagnostic.implementation = implementation
    return diagnostic
  }

  /// The diagnostic of an eager registration of a feature that nothing caches without a context.
  static func notEager(_ binding: Binding) -> Diagnostic {
    let feature = "\(binding.registration.feature)"
    var diagnostic = Diagnostic(
      kind: "FeatureRegistrationInvalid",
      message: "\(feature) is registered eager, but it is not a cacheable without a context",
      location: binding.site, feature: feature,
      fix: "register \(feature) without eager: true: a start loads only cacheables without a context,\n"
        + "the one instance a branch keeps; request the others where they are used")
    diagnostic.implementation = .init(
      name: binding.registration.implementation, location: binding.registration.location)
    return diagnostic
  }
}
