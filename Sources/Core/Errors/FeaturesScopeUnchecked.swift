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
    let place = ValidationContexts.declaration(scope, from: parent)
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

  /// `scope` is declared to be branched from branches of `parent`, and no definition of it is on
  /// their path: the app cannot branch it there.
  ///
  /// - Parameter undefined: What branching it there threw; its `defined in` note is kept.
  init(
    _ scope: any FeaturesScope.Type, from parent: Branch, undefined: FeaturesScopeUndefined, at location: SourceLocation
  ) {
    self.scope = scope
    let parentScope = parent.definition.scope
    var diagnostic = Diagnostic(
      kind: "FeaturesScopeUnchecked",
      message: "\(scope.name) was not checked below \(parentScope.name): it is not defined there", feature: nil,
      in: parent, frames: [], at: location)
    let place = ValidationContexts.declaration(scope, from: parentScope)
    diagnostic.notes.append(.init("place", "declared: \(place)"))
    diagnostic.notes += undefined.diagnostic.notes.filter { $0.label == "defined in" }
    diagnostic.fix =
      "remove \(place): branches of \(parentScope.name) cannot branch \(scope.name)"
      + "\nor define \(scope.name) with registry.defineScope(\(scope.name).self) { ... } in \(registryName(parentScope))"
    self.diagnostic = diagnostic
  }
}

/// `Session`: the type of a scope's context, as fixes name it.
func contextTypeName<Scope: FeaturesScope>(_ scope: Scope.Type) -> String {
  String(describing: Scope.Context.self)
}
