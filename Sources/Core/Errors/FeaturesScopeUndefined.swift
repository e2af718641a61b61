/// A scope was branched where it is not defined, or required where it is not on the path.
///
/// ```
/// FeaturesScopeUndefined: RequestScope is not defined in Root
/// ├─ requested at: App/Main.swift:30
/// ├─ scope: Root
/// ├─ defined in: Root › SessionScope
/// └─ fix: branch RequestScope from a branch of SessionScope
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
      kind: "FeaturesScopeUndefined", message: "\(scope.name) is not defined in \(here.name)", feature: nil,
      in: branch, frames: LoadingThread.current.frames, at: location)
    let elsewhere = branch.root.definition.subtree.filter { $0.scope == scope }
    var fixes: [String] = []
    if !elsewhere.isEmpty {
      diagnostic.notes.append(.init("defined in", elsewhere.map { scopePathName($0.scopePath) }.joined(separator: "\n")))
      for definition in elsewhere {
        fixes.append("branch \(scope.name) from a branch of \(definition.scopePath.dropLast().last!.name)")
      }
    }
    fixes.append("define it with registry.defineScope(\(scope.name).self) { ... } in \(registryName(here))")
    diagnostic.fix = fixes.enumerated().map { $0 == 0 ? $1 : "or " + $1 }.joined(separator: "\n")
    self.diagnostic = diagnostic
  }

  init(requiring scope: any FeaturesScope.Type, in branch: Branch, at location: SourceLocation) {
    self.scope = scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeUndefined", message: "\(scope.name) is not on this branch's path", feature: nil,
      in: branch, frames: LoadingThread.current.frames, at: location)
    diagnostic.fix = "require \(scope.name) only in branches made with branch(\(scope.name).self, ...) and below"
    self.diagnostic = diagnostic
  }
}
