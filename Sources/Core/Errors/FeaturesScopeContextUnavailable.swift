/// A scope's context was read where no branch on the path is of that scope.
///
/// When the reader is a cacheable's loader registered above that scope, the diagnostic says so: that
/// loader runs in the ancestor that registers it and can never see the context. Otherwise it says
/// where the scope is defined and how to branch it from here; in a test container (`TestFeatures()`
/// in ArborTesting), first how the test gives the context: `features.use(context:for:)`.
///
/// ```
/// FeaturesScopeContextUnavailable: no context for SessionScope
/// ├─ requested at: App/Greeter.swift:12
/// ├─ scope: Root
/// ├─ why: Greeter is cacheable and registered in Root, so it loads in the Root branch
/// │       and cannot see the context of a SessionScope branch
/// └─ fix: register Greeter in defineScope(SessionScope.self) so it loads in branches of SessionScope
/// ```
public struct FeaturesScopeContextUnavailable: DiagnosticError {
  /// The scope whose context was read.
  public let scope: any FeaturesScope.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ scope: any FeaturesScope.Type, in branch: Branch, frames: [LoadStep], at location: SourceLocation) {
    self.scope = scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeContextUnavailable", message: "no context for \(scope.name)", feature: nil, in: branch,
      frames: frames, at: location)
    if let loading = frames.last, loading.branch == ObjectIdentifier(branch),
      let entry = branch.definition.table.entry(for: FeatureTable.key(loading.feature)),
      case .serves(let lifetime) = entry.kind, lifetime.isCached
    {
      // The usual mistake: a cacheable registered too high up to see the context it reads.
      let registered = entry.binding.takeUnretainedValue().scope.name
      diagnostic.notes.append(
        .init(
          "why",
          "\(loading.feature) is cacheable and registered in \(registered), so it loads in the \(registered) branch"
            + "\nand cannot see the context of a \(scope.name) branch"))
      diagnostic.fix =
        "register \(loading.feature) in defineScope(\(scope.name).self) so it loads in branches of \(scope.name)"
    } else {
      let (note, routes) = branch.routes(to: scope)
      if let note { diagnostic.notes.append(note) }
      let branchIt = branch.useInScopeFix("read", scope, routes: routes)
      if branch.overrides?.givesScopeContexts == true {
        // A test container: the test gives the context (a copy of a tree may also branch the scope).
        let give = "give it in the test: features.use(context: <a \(contextTypeName(scope))>, for: \(scope.name).self)"
        diagnostic.fix = routes.isEmpty ? give : alternatives([give, branchIt])
      } else {
        diagnostic.fix = branchIt
      }
    }
    self.diagnostic = diagnostic
  }
}
