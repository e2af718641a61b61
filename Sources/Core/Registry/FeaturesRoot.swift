// swift-format-ignore: AlwaysUseLowerCamelCase
/// Builds the root of a features tree from its registry: static values, loaders, and scopes.
///
/// Named like a type because it reads as one at the call site: it is the one place a tree's
/// implementations are registered. Registrations are checked as the root is built; a feature
/// registered twice in one scope is reported at once and fails every request for it (see
/// ``FeaturesRegistry``). Any number of roots can live side by side; they share nothing.
///
/// ```swift
/// let root: Features = FeaturesRoot { registry in
///   registry.use(Clock(now: { 0 }))
///   registry.use(Printer.console())
///   registry.defineScope(SessionScope.self) { registry in
///     registry.use(Greeter.live())
///   }
/// }
/// ```
///
/// - Parameters:
///   - observer: Told of every load, branch and teardown of the tree (see ``LoadProfile``);
///     without one, nothing is recorded.
///   - clock: What the tree's time runs on: the ages of instances with a time-to-live, the time
///     limits of a start and of teardowns, and the durations of loads its observer is told. A
///     `ContinuousClock` unless you give one (a test gives a clock it advances by hand).
///   - file: Where the root is built; captured for you.
///   - line: Where the root is built; captured for you.
///   - define: Registers the root's features and scopes.
/// - Returns: The features of the root branch.
public func FeaturesRoot(
  observer: (any FeaturesObserver)? = nil, clock: any Clock<Duration> = ContinuousClock(),
  file: StaticString = #fileID, line: UInt = #line,
  _ define: (inout FeaturesRegistry<RootFeaturesScope>) -> Void
) -> Features {
  let location = SourceLocation(fileID: file, line: line)
  let definition = RootDefinition.make(
    at: location, observer: observer, renewals: TreeRenewals(clock: clock), define)
  let root = Branch(root: definition, overrides: nil)
  if observer != nil { root.reportCreated() }
  return Features(root)
}

/// Namespace for building root definitions.
package enum RootDefinition {
  /// Collects a root registry into its scope definitions, reporting conflicts.
  ///
  /// - Parameters:
  ///   - location: Where the root is built: the "where" of the conflicts reported now.
  ///   - define: Registers the root's features and scopes.
  package static func make(
    at location: SourceLocation? = nil, observer: (any FeaturesObserver)? = nil,
    renewals: TreeRenewals = TreeRenewals(),
    _ define: (inout FeaturesRegistry<RootFeaturesScope>) -> Void
  ) -> ScopeDefinition {
    var registry = FeaturesRegistry<RootFeaturesScope>(
      content: ScopeContent(scope: RootFeaturesScope.self, location: nil))
    define(&registry)
    var conflicts: [Diagnostic] = []
    let definition = ScopeDefinition(
      registry.content, parentTable: nil, parentPath: [], observer: observer, renewals: renewals,
      reporting: &conflicts)
    for var conflict in conflicts {
      conflict.notes.insert(.init("root built at", location.map(\.description) ?? "unknown"), at: 0)
      IssueReporting.report(conflict, severity: .failure)
    }
    return definition
  }
}

extension Branch {
  /// A root branch of `definition`.
  package convenience init(root definition: ScopeDefinition, overrides: (any FeatureOverrides)?) {
    self.init(definition: definition, parent: nil, path: ScopePath(), overrides: overrides)
  }
}

extension ScopeDefinition {
  /// A definition of `scope` below this one with no registrations of its own.
  func undefinedChild(_ scope: any FeaturesScope.Type) -> ScopeDefinition {
    var ignored: [Diagnostic] = []
    return ScopeDefinition(
      ScopeContent(scope: scope, location: nil), parentTable: table, parentPath: scopePath, observer: observer,
      renewals: renewals, reporting: &ignored)
  }
}
