// Shared pieces of Arbor's diagnostics. Everything here runs only while an error is being built.

extension Diagnostic {
  /// A diagnostic of a failure in `branch`: the scope path and the resolution path filled in.
  ///
  /// The path is `frames` (the loads in progress, outermost first), then `last` requested at
  /// `location` when given: the request that failed.
  init(
    kind: String, message: String, feature: (any Any.Type)?, in branch: Branch?, frames: [LoadStep],
    closingWith last: (any Any.Type)? = nil, at location: SourceLocation
  ) {
    self.init(
      kind: kind, message: message, location: location, feature: feature.map { String(describing: $0) },
      scope: branch?.path.diagnosticSteps ?? [], path: Self.path(frames, closingWith: last, at: location))
  }

  /// The resolution path of `frames`, then `last` requested at `location`.
  static func path(_ frames: [LoadStep], closingWith last: (any Any.Type)?, at location: SourceLocation)
    -> [PathStep]
  {
    var path = frames.map { PathStep(feature: String(describing: $0.feature), location: $0.location) }
    if let last { path.append(PathStep(feature: String(describing: last), location: location)) }
    return path
  }

  /// This diagnostic as the cause of `parent`: facts the parent already shows are left out.
  ///
  /// The parent shows the whole resolution path, so a cause never repeats it; a cause in the same
  /// branch as its parent leaves out the scope too.
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

  /// Every definition of `scope` in this branch's tree, wherever it is defined.
  func definitions(of scope: any FeaturesScope.Type) -> [ScopeDefinition] {
    root.definition.subtree.filter { $0.scope == scope }
  }
}

/// `, context: ...`, or nothing for a scope whose branches carry no context.
private func contextArgument(_ scope: any FeaturesScope.Type) -> String {
  takesContext(scope) ? ", context: ..." : ""
}

private func takesContext<Scope: FeaturesScope>(_: Scope.Type) -> Bool { Scope.Context.self != Void.self }

/// `FeaturesRoot` or `defineScope(Scope.self)`: where a scope's registrations are written.
func registryName(_ scope: any FeaturesScope.Type) -> String {
  scope == RootFeaturesScope.self ? "FeaturesRoot" : "defineScope(\(scope.name).self)"
}

/// `Root › SessionScope` for a list of scope types.
func scopePathName(_ scopes: [any FeaturesScope.Type]) -> String {
  Diagnostic.render(scope: scopes.map { Diagnostic.ScopeStep(name: $0.name) })
}

/// Fix lines joined as alternatives: the first as it is, each next one after `or `.
func alternatives(_ fixes: [String]) -> String {
  fixes.enumerated().map { $0 == 0 ? $1 : "or " + $1 }.joined(separator: "\n")
}

extension ScopeDefinition {
  /// Every definition in this subtree, with this one first, children in name order.
  var subtree: [ScopeDefinition] {
    let ordered = children.values.sorted { lhs, rhs in lhs.scope.name < rhs.scope.name }
    return [self] + ordered.flatMap { $0.subtree }
  }

  /// The definitions along `path`, which starts with this one's scope: this one, its child of
  /// `path[1]`, that one's child of `path[2]`, and so on, as far as they are defined.
  func definitions(along path: some Collection<any FeaturesScope.Type>) -> [ScopeDefinition] {
    var found = [self]
    for scope in path.dropFirst() {
      guard let next = found[found.count - 1].child(scope) else { break }
      found.append(next)
    }
    return found
  }
}

extension Branch {
  /// Where `scope` is defined in this tree (a `defined in` note, if anywhere), and for each
  /// definition, how to reach a branch of it from here.
  func routes(to scope: any FeaturesScope.Type) -> (note: Diagnostic.Note?, routes: [Route]) {
    let definitions = definitions(of: scope)
    guard !definitions.isEmpty else { return (nil, []) }
    let note = Diagnostic.Note("defined in", definitions.map { scopePathName($0.scopePath) }.joined(separator: "\n"))
    return (note, definitions.map(route))
  }

  /// How to reach a branch of `target`, a definition of a registry, from this branch.
  ///
  /// A scope defined in a registry is branched from a branch of that registry's scope or below it,
  /// so the route starts from the deepest registry on the way to `target` that this branch is at
  /// or below (the root's, at least) and branches each scope from there down.
  private func route(to target: ScopeDefinition) -> Route {
    let there = target.scopePath
    guard there.count > 1 else { return .below(through: [], calls: "features") }  // the root: always on the path
    let registries = root.definition.definitions(along: there.dropLast())
    var reached: Set<ObjectIdentifier> = []
    var branch: Branch? = self
    while let current = branch {
      reached.insert(current.definition.origin)
      branch = current.parent
    }
    let start = registries.lastIndex { reached.contains(ObjectIdentifier($0)) } ?? 0
    let below = Array(there[(start + 1)...])
    // A nearer definition of the first scope on the way would replace the one that leads to `target`.
    let first = start + 1 < registries.count ? registries[start + 1] : target
    guard nearestDefinition(of: below[0])?.origin == ObjectIdentifier(first) else {
      return .from(Array(there.dropLast()))
    }
    var calls = "features"
    for scope in below { calls += ".branch(\(scope.name).self\(contextArgument(scope)))" }
    return .below(through: below.dropLast().map { $0.name }, calls: calls)
  }

  /// The definition a branch of `scope` made from this branch would have: the nearest defined.
  private func nearestDefinition(of scope: any FeaturesScope.Type) -> ScopeDefinition? {
    var branch: Branch? = self
    while let current = branch {
      if let defined = current.definition.child(scope) { return defined }
      branch = current.parent
    }
    return nil
  }

  /// How to reach a branch of a scope.
  enum Route {
    /// It is reached by branching from here: the scopes to branch on the way, and the calls.
    case below(through: [String], calls: String)
    /// A nearer definition of a scope on the way hides it: the path of the scope whose branches it
    /// is made from, which names the definition that defines it.
    case from([any FeaturesScope.Type])
  }

  /// The fix for using `scope` (reading its context, requiring it) where no branch of it is on the
  /// path: `read it in a branch of SessionScope or below: features.branch(SessionScope.self, ...)`.
  func useInScopeFix(_ verb: String, _ scope: any FeaturesScope.Type, routes: [Route]) -> String {
    guard !routes.isEmpty else {
      return "define \(scope.name) with registry.defineScope(\(scope.name).self) { ... }"
        + " in \(registryName(definition.scope))\nand \(verb) it in its branches"
    }
    return alternatives(
      routes.map { route in
        switch route {
        case .below(_, let calls): "\(verb) it in a branch of \(scope.name) or below: \(calls)"
        case .from(let parent):
          "\(verb) it in a branch of \(scope.name) or below, branched from a branch of \(scopePathName(parent))"
        }
      })
  }
}
