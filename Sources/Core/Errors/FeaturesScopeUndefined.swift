/// A scope was branched where it is not defined, or required where it is not on the path.
///
/// A scope can be branched from a branch of the scope whose registry defines it, or from any branch
/// below that one. Its diagnostic says where the scope is defined (if anywhere in the tree) and how
/// to reach a branch of it from here: the `branch` calls on the way, or the scope to branch it from
/// when a nearer definition of a scope on the way hides it, and where to define it instead.
///
/// ```
/// FeaturesScopeUndefined: RequestScope is not defined in Root
/// ├─ requested at: App/Main.swift:30
/// ├─ scope: Root
/// ├─ defined in: Root › SessionScope › RequestScope
/// └─ fix: branch SessionScope first: features.branch(SessionScope.self, context: ...).branch(RequestScope.self, context: ...)
///         or define it with registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
/// ```
public struct FeaturesScopeUndefined: DiagnosticError {
  /// The scope that was branched or required.
  public let scope: any FeaturesScope.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(branching scope: any FeaturesScope.Type, from branch: Branch, at location: SourceLocation) {
    self.scope = scope
    let here = branch.definition.scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeUndefined",
      message: "\(scope.name) is not defined in \(here.name)\(here == RootFeaturesScope.self ? "" : " or above")",
      feature: nil,
      in: branch, frames: LoadingThread.currentPath, at: location)
    let (note, routes) = branch.routes(to: scope)
    if let note { diagnostic.notes.append(note) }
    var fixes: [String] = routes.map { route in
      switch route {
      case .below(let through, let calls): "branch \(through.joined(separator: ", then ")) first: \(calls)"
      case .from(let parent): "branch \(scope.name) from a branch of \(scopePathName(parent))"
      }
    }
    // Defined in any registry on this branch's path, it can be branched here.
    let registries = branch.definition.scopePath.map(registryName)
    fixes.append(
      "define it with registry.defineScope(\(scope.name).self) { ... } in \(registries[0])"
        + registries.dropFirst().map { "\nor in \($0)" }.joined())
    diagnostic.fix = alternatives(fixes)
    self.diagnostic = diagnostic
  }

  init(requiring scope: any FeaturesScope.Type, in branch: Branch, at location: SourceLocation) {
    self.scope = scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeUndefined", message: "\(scope.name) is not on this branch's path", feature: nil,
      in: branch, frames: LoadingThread.currentPath, at: location)
    let (note, routes) = branch.routes(to: scope)
    if let note { diagnostic.notes.append(note) }
    diagnostic.fix = branch.useInScopeFix("require", scope, routes: routes)
    self.diagnostic = diagnostic
  }
}
