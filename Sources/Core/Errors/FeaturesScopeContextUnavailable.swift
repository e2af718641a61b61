/// A scope's context was read where no branch on the path is of that scope.
///
/// When the reader is a cacheable's loader registered above that scope, the diagnostic says so:
/// that loader runs in the ancestor that registers it and can never see the context.
///
/// ```
/// FeaturesScopeContextUnavailable: no context for SessionScope
/// ├─ requested at: App/Greeter.swift:12
/// ├─ scope: Root
/// ├─ loaded in: Greeter is cacheable and registered in Root, so it loads in a Root branch
/// └─ fix: register Greeter in defineScope(SessionScope.self) so it loads in branches of SessionScope
/// ```
public struct FeaturesScopeContextUnavailable: DiagnosticError {
  /// The scope whose context was read.
  public let scope: any FeaturesScope.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ scope: any FeaturesScope.Type, in branch: Branch, frames: [LoadFrame], at location: SourceLocation) {
    self.scope = scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeContextUnavailable", message: "no context for \(scope.name)", feature: nil, in: branch,
      frames: frames, at: location)
    if let loading = frames.last, loading.branch == ObjectIdentifier(branch),
      let entry = branch.definition.table.entry(for: FeatureTable.key(loading.feature)),
      entry.kind == .cacheable || entry.kind == .contextualCacheable
    {
      let registered = entry.binding.takeUnretainedValue().scope.name
      diagnostic.notes.append(
        .init(
          "loaded in",
          "\(loading.feature) is cacheable and registered in \(registered), so it loads in a \(registered) branch"))
      diagnostic.fix =
        "register \(loading.feature) in defineScope(\(scope.name).self) so it loads in branches of \(scope.name)"
    } else {
      diagnostic.fix =
        "read it from a branch of \(scope.name): features.branch(\(scope.name).self, context: ...) and below"
    }
    self.diagnostic = diagnostic
  }
}
