/// A scope's context was read where no branch on the path is of that scope.
///
/// When the reader is a cacheable's loader registered above that scope, the diagnostic says so: that
/// loader runs in the ancestor that registers it and can never see the context. When it is a
/// disposable's loader, it says that the disposable loads in the branch that requests it, and that
/// registered in the scope it reads, only branches that have the context resolve it. Otherwise it says
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
      let registered = entry.binding.object.scope
      let loads = "\(loading.feature) is cacheable and registered in \(registered.name), so it loads in the "
      if registered == RootFeaturesScope.self
        || branch.definitions(of: scope).allSatisfy({ $0.scopePath.contains { $0 == registered } })
      {
        // The usual mistake: a cacheable registered too high up to see the context it reads. In
        // branches of `scope`, it still sees the context of the scope it is registered in.
        diagnostic.notes.append(
          .init("why", loads + "\(registered.name) branch\nand cannot see the context of a \(scope.name) branch"))
        diagnostic.fix =
          "register \(loading.feature) in defineScope(\(scope.name).self) so it loads in branches of \(scope.name)"
      } else {
        // Registered in a scope branched here from where `scope` is not on the path: moving the
        // loader into `scope` would lose the context of this one, so the fixes change where this
        // scope is branched, or let the loader do without.
        let from = scopePathName(branch.path.steps.dropLast().map(\.scope))
        diagnostic.notes.append(
          .init(
            "why",
            loads
              + "\(registered.name) branch,\nwhich is branched here from \(from): no \(scope.name) branch is on its path"
          ))
        diagnostic.fix = alternatives(
          Self.branchingFixes(registered, from: branch.path.steps.dropLast().last?.scope, reading: scope, in: branch))
      }
    } else if let loading = frames.last, loading.branch == ObjectIdentifier(branch),
      let entry = branch.definition.table.entry(for: FeatureTable.key(loading.feature)),
      case .serves(let lifetime) = entry.kind, !lifetime.isCached
    {
      // A disposable loads in the branch that requests it: registered above `scope`, it reads the
      // context from a branch of `scope` and fails from any other. Registered in `scope`, only
      // branches that have the context can resolve it.
      let registered = entry.binding.object.scope
      let here = branch.definition.scope.name
      diagnostic.notes.append(
        .init(
          "why",
          "\(loading.feature) is disposable and registered in \(registered.name), so it loads in the branch that"
            + " requests it:\nthis \(here) branch has no \(scope.name) branch on its path"))
      diagnostic.fix =
        "register \(loading.feature) in defineScope(\(scope.name).self),"
        + " so that only branches of \(scope.name) and below resolve it"
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

  /// The fixes for a loader registered in `registered`, branched from a branch of `parent`, that
  /// reads the context of `scope`: each removes the problem without moving it elsewhere.
  private static func branchingFixes(
    _ registered: any FeaturesScope.Type, from parent: (any FeaturesScope.Type)?, reading scope: any FeaturesScope.Type,
    in branch: Branch
  ) -> [String] {
    let ifPresent =
      "read it with try features.context(ifPresent: \(scope.name).self), which is nil where no \(scope.name) branch is on the path"
    // Moving `registered` into `scope`, or validating it below `scope`, keeps the scopes above it
    // only when `scope` is defined beside it or below that.
    let beside = definedBeside(scope, registered, in: branch)
    let move =
      "move defineScope(\(registered.name).self) into defineScope(\(scope.name).self)"
      + " so that its branches are made from branches of \(scope.name)"
    guard let validation = branch.overrides as? ValidationRecorder else {
      return beside ? [move, ifPresent] : [ifPresent]
    }
    let contexts = validation.contexts
    if let parent, let places = contexts.places(of: registered), places.contains(where: { $0 == parent }) {
      // The app branches it from here, it says: only the loader can change, or the declaration.
      var fixes = [ifPresent]
      if contexts.hasContext(for: scope), places.count > 1 || beside {
        fixes.append(
          "if the app never branches \(registered.name) from branches of \(parent.name), remove "
            + ValidationContexts.declaration(registered, from: parent))
      }
      return fixes
    }
    guard beside else { return [ifPresent] }
    var fixes = [move]
    if !contexts.hasContext(for: scope) {
      // Given the context, validation checks the scope below `scope`, as the loader's read shows.
      fixes.append(
        "if the app branches \(registered.name) from branches of \(scope.name), give validation a context for "
          + "\(scope.name): contexts.use(<a \(contextTypeName(scope))>, for: \(scope.name).self)")
    }
    return fixes + [ifPresent]
  }

  /// Whether every definition of `registered` has a definition of `scope` in the same registry or
  /// below it, outside `registered`: branches of that one can branch `registered` and keep the
  /// scopes above it.
  static func definedBeside(_ scope: any FeaturesScope.Type, _ registered: any FeaturesScope.Type, in branch: Branch)
    -> Bool
  {
    let targets = branch.definitions(of: scope)
    let definitions = branch.definitions(of: registered)
    return !definitions.isEmpty
      && definitions.allSatisfy { definition in
        let registry = definition.scopePath.dropLast()
        return targets.contains { target in
          target.scopePath.starts(with: registry, by: ==) && !target.scopePath.contains { $0 == registered }
        }
      }
  }
}
