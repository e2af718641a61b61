/// No implementation of a feature is registered in the requesting branch's scope or any ancestor.
///
/// Its diagnostic lists the scopes searched, says where else the feature is registered if some
/// scope off this branch's path registers it, and how to register it.
///
/// ```
/// FeatureUndefined: no implementation of Printer
/// ├─ requested at: App/Greeter.swift:17
/// ├─ searched: SessionScope, Root
/// └─ fix: register a loader for Printer with registry.use(...) in FeaturesRoot
///         or in defineScope(SessionScope.self)
/// ```
public struct FeatureUndefined: DiagnosticError {
  /// The feature that was requested.
  public let feature: any Feature.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ feature: any Feature.Type, in branch: Branch, at location: SourceLocation) {
    self.feature = feature
    var diagnostic = Diagnostic(
      kind: "FeatureUndefined", message: "no implementation of \(feature)", feature: feature, in: branch,
      frames: LoadingThread.currentPath, closingWith: feature, at: location)
    diagnostic.searched = branch.searchedScopes
    let elsewhere = branch.root.definition.subtree.filter { definition in
      definition.bindings.contains { $0.registration.feature == feature }
    }
    if !elsewhere.isEmpty {
      diagnostic.notes.append(
        .init(
          "registered in",
          elsewhere.map { "\(scopePathName($0.scopePath)), which is not on this branch's path" }
            .joined(separator: "\n")))
    }
    let registries = branch.definition.scopePath.map(registryName)
    let what = feature is any StaticFeature.Type ? "a value" : "a loader"
    let how = feature is any StaticFeature.Type ? "registry.use(\(feature)(...))" : "registry.use(...)"
    diagnostic.fix =
      feature is any StaticFeature.Type
      ? "register \(what) for \(feature) with \(how) in FeaturesRoot"
      : "register \(what) for \(feature) with \(how) in \(registries[0])"
        + registries.dropFirst().map { "\nor in \($0)" }.joined()
    if let branchable = elsewhere.first, branchable.scope != RootFeaturesScope.self {
      diagnostic.fix! += "\nor request it from a branch of \(branchable.scope.name)"
    }
    self.diagnostic = diagnostic
  }
}
