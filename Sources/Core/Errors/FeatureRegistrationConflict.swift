/// One scope registers a feature more than once: every request for it there fails with both sites.
///
/// It is also reported once when the root is built (a test failure in tests, standard error
/// otherwise), with the same facts but no request. Arbor never picks one of the registrations
/// silently. To replace an implementation for some branches, register it in a nested scope.
///
/// ```
/// FeatureRegistrationConflict: Printer is registered 2 times in Root
/// ├─ scope: Root
/// ├─ registrations: Printer.console() at App/Main.swift:8
/// │                 Printer.silent() at App/Main.swift:9
/// └─ fix: keep one registration of Printer in FeaturesRoot
/// ```
public struct FeatureRegistrationConflict: DiagnosticError {
  /// The feature registered more than once.
  public let feature: any Feature.Type
  /// Both (all) registration sites, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ binding: Binding, in branch: Branch, at location: SourceLocation) {
    feature = binding.registration.feature
    var diagnostic = Self.diagnostic(binding, scopePath: branch.definition.scopePath)
    diagnostic.location = location
    diagnostic.scope = branch.path.diagnosticSteps
    diagnostic.path = Diagnostic.path(LoadingThread.currentPath, closingWith: feature, at: location)
    self.diagnostic = diagnostic
  }

  /// The diagnostic reported when the root is built.
  static func diagnostic(_ binding: Binding, scopePath: [any FeaturesScope.Type]) -> Diagnostic {
    let feature = binding.registration.feature
    let scope = binding.scope
    return Diagnostic(
      kind: "FeatureRegistrationConflict",
      message: "\(feature) is registered \(binding.conflicts.count) times in \(scope.name)",
      feature: String(describing: feature),
      scope: scopePath.map { .init(name: $0.name) },
      notes: [
        .init(
          "registrations",
          binding.conflicts.map { "\($0.registration.implementation) at \($0.site)" }.joined(separator: "\n"))
      ],
      fix: "keep one registration of \(feature) in \(registryName(scope))"
        + (scope == RootFeaturesScope.self ? "" : "; to replace an ancestor's, registering once here is enough"))
  }
}
