/// Validation could not branch a scope: its `Context` is not `Void` and no context was given for
/// it, so neither its loaders nor those of the scopes below it were checked.
///
/// ```
/// FeaturesScopeUnchecked: SessionScope was not checked: no context to branch it with
/// ├─ scope: Root
/// ├─ unchecked: SessionScope, SessionScope › RequestScope
/// └─ fix: give one: contexts.use(<a Session>, for: SessionScope.self)
/// ```
public struct FeaturesScopeUnchecked: DiagnosticError {
  /// The scope that was not branched.
  public let scope: any FeaturesScope.Type
  /// What was not checked, and how to give the context.
  public let diagnostic: Diagnostic

  init(_ definition: ScopeDefinition, below branch: Branch, at location: SourceLocation) {
    scope = definition.scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeUnchecked",
      message: "\(definition.scope.name) was not checked: no context to branch it with", feature: nil, in: branch,
      frames: [], at: location)
    let depth = branch.definition.scopePath.count
    diagnostic.notes.append(
      .init(
        "unchecked",
        definition.subtree.map { $0.scopePath.dropFirst(depth).map { scope in scope.name }.joined(separator: " › ") }
          .joined(separator: ", ")))
    diagnostic.fix =
      "give one: contexts.use(<a \(contextTypeName(definition.scope))>, for: \(definition.scope.name).self)"
    self.diagnostic = diagnostic
  }

  /// `scope` is branched from branches of `parent`, declared so or inferred, and validation made
  /// none.
  ///
  /// - Parameters:
  ///   - defined: Whether the tree defines `parent` anywhere.
  ///   - declared: Whether the place was declared with `contexts.branch(_:from:)`.
  init(
    _ scope: any FeaturesScope.Type, from parent: any FeaturesScope.Type, defined: Bool, declared: Bool,
    in root: Branch, at location: SourceLocation
  ) {
    self.scope = scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeUnchecked",
      message: "\(scope.name) was not checked below \(parent.name): validation made no branch of \(parent.name)",
      feature: nil, in: root, frames: [], at: location)
    let place = "contexts.branch(\(scope.name).self, from: \(parent.name).self)"
    diagnostic.notes.append(.init("place", declared ? "declared: \(place)" : "inferred: its loaders read the context"))
    if !defined {
      diagnostic.fix =
        "define \(parent.name) with registry.defineScope(\(parent.name).self) { ... }"
        + (declared ? "\nor remove \(place)" : "")
    } else {
      diagnostic.fix = "give a context to each scope on the way to \(parent.name), as the problems above say"
    }
    self.diagnostic = diagnostic
  }
}

/// `Session`: the type of a scope's context, as fixes name it.
func contextTypeName<Scope: FeaturesScope>(_ scope: Scope.Type) -> String {
  String(describing: Scope.Context.self)
}
