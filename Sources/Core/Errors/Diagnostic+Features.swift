extension Diagnostic {
  /// A diagnostic of a failure in `branch`: the scope path and the resolution path filled in.
  init(
    kind: String, message: String, feature: (any Any.Type)?, in branch: Branch?, frames: [LoadFrame],
    closingWith last: (any Any.Type)? = nil, at location: SourceLocation
  ) {
    var path = frames.map { PathStep(feature: String(describing: $0.feature), location: $0.location) }
    if let last { path.append(PathStep(feature: String(describing: last), location: location)) }
    self.init(
      kind: kind, message: message, location: location, feature: feature.map { String(describing: $0) },
      scope: branch?.path.diagnosticSteps ?? [], path: path)
  }

  /// This diagnostic as the cause of `parent`: facts the parent already shows are left out.
  func nested(under parent: Diagnostic) -> Diagnostic {
    var nested = self
    nested.path = []
    if nested.scope == parent.scope { nested.scope = [] }
    return nested
  }
}

extension Branch {
  /// The scopes from this branch up to the root, nearest first.
  var searchedScopes: [String] { path.steps.reversed().map { $0.scope.name } }
}

/// `registry.use(...) in FeaturesRoot` or `in defineScope(Scope.self)`.
func registryName(_ scope: any FeaturesScope.Type) -> String {
  scope == RootFeaturesScope.self ? "FeaturesRoot" : "defineScope(\(scope.name).self)"
}

/// `Root › SessionScope` for a list of scope types.
func scopePathName(_ scopes: [any FeaturesScope.Type]) -> String {
  Diagnostic.render(scope: scopes.map { Diagnostic.ScopeStep(name: $0.name) })
}

extension ScopeDefinition {
  /// Every definition in this subtree, with this one first.
  var subtree: [ScopeDefinition] {
    let ordered = children.values.sorted { lhs, rhs in lhs.scope.name < rhs.scope.name }
    return [self] + ordered.flatMap { $0.subtree }
  }
}
