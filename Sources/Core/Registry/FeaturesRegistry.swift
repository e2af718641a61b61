/// The registrations of one scope: static values (at the root), loaders, and nested scopes.
///
/// You receive a registry in ``FeaturesRoot(observer:clock:file:line:_:)`` and in
/// ``defineScope(_:file:line:_:)``. Register each feature once per scope: a second registration of
/// the same feature in the same scope is a conflict. Both registrations are reported at once (a
/// test failure in tests, standard error otherwise) and every request for that feature in that
/// scope throws ``FeatureRegistrationConflict`` naming both sites, so the mistake can never pass as
/// a silent choice of one of them.
///
/// ```swift
/// let root = FeaturesRoot { registry in
///   registry.use(Clock(now: { 0 }))
///   registry.use(Printer.console())
///   registry.defineScope(SessionScope.self) { registry in
///     registry.use(Greeter.live())
///   }
/// }
/// ```
public struct FeaturesRegistry<Scope: FeaturesScope> {
  var content: ScopeContent

  init(content: ScopeContent) {
    self.content = content
  }

  /// Registers a loader in this scope.
  ///
  /// A cacheable without a context may be `eager`: ``Features/start(timeout:file:line:isolation:)``
  /// on a branch of this scope (the root, for the root's registry) loads it before the branch
  /// serves, after the features it requests. Time limits bound its load in a start, and its
  /// teardown in a close: one that passes its limit is reported, and the rest goes on.
  ///
  /// ```swift
  /// registry.use(Database.live(), eager: true, startTimeLimit: .seconds(10), teardownTimeLimit: .seconds(5))
  /// ```
  ///
  /// Validation, which a server runs before `start()`, runs every loader too, eager or not, then the
  /// teardown of what it returned. A loader that opens a connection asks
  /// ``Features/isValidating`` and returns an instance that opens nothing while it is validated.
  ///
  /// - Parameters:
  ///   - loader: The implementation, from ``FeatureLoader``'s factories.
  ///   - eager: Whether `start()` loads it.
  ///   - startTimeLimit: How long its load may take in `start()`; no limit when `nil`.
  ///   - teardownTimeLimit: How long its teardown may take in a close; no limit when `nil`.
  ///   - file: Where it is registered; captured for you.
  ///   - line: Where it is registered; captured for you.
  public mutating func use(
    _ loader: FeatureLoader, eager: Bool = false, startTimeLimit: Duration? = nil, teardownTimeLimit: Duration? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    content.register(
      loader.registration, at: SourceLocation(fileID: file, line: line),
      lifecycle: Binding.LifecycleOptions(
        isEager: eager, startTimeLimit: startTimeLimit, teardownTimeLimit: teardownTimeLimit))
  }

  /// Names work that must finish before a branch of this scope serves: a migration, a cache to
  /// warm.
  ///
  /// ``Features/start(timeout:file:line:isolation:)`` runs it once, in the started branch's
  /// features, after every eager feature loaded, in the order it was named; its failure fails the
  /// start like a load's.
  ///
  /// ```swift
  /// registry.beforeServing { features in
  ///   try await features.instance(of: Database.self).migrate()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - timeLimit: How long it may take; no limit when `nil` (the start's own still applies).
  ///   - file: Where it is named; captured for you.
  ///   - line: Where it is named; captured for you.
  ///   - work: The work, given the started branch's features.
  public mutating func beforeServing(
    timeLimit: Duration? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ work: @escaping @Sendable (Features) async throws -> Void
  ) {
    content.startWork.append(StartWork(run: work, timeLimit: timeLimit, site: SourceLocation(fileID: file, line: line)))
  }

  /// Registers an implementation type in this scope, cacheable or disposable as its feature is.
  ///
  /// ```swift
  /// registry.use(LiveGreeter.self)
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type.
  ///   - file: Where it is registered; captured for you.
  ///   - line: Where it is registered; captured for you.
  public mutating func use<I: FeatureImplementation>(
    _ implementation: I.Type, file: StaticString = #fileID, line: UInt = #line
  ) where I.Implemented: CacheableFeature {
    use(.implementation(implementation, file: file, line: line), file: file, line: line)
  }

  /// Registers an implementation type of a disposable feature in this scope.
  ///
  /// ```swift
  /// registry.use(ConsolePrinter.self)
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type.
  ///   - file: Where it is registered; captured for you.
  ///   - line: Where it is registered; captured for you.
  public mutating func use<I: FeatureImplementation>(
    _ implementation: I.Type, file: StaticString = #fileID, line: UInt = #line
  ) where I.Implemented: DisposableFeature {
    use(.implementation(implementation, file: file, line: line), file: file, line: line)
  }

  /// Defines a scope whose branches can be made from branches of this one, or of any scope below
  /// it, with its own loaders.
  ///
  /// A branch of the new scope sees its loaders first, then its parent branch's, up to the root: a
  /// scope defined at the root and branched from a session sees the session's loaders and context.
  /// A definition of the same scope in a nested registry replaces this one below that registry's
  /// scope (the nearest definition wins). Defining the same scope twice in one registry merges the
  /// two definitions.
  ///
  /// ```swift
  /// registry.defineScope(SessionScope.self) { registry in
  ///   registry.use(Greeter.live())
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope type.
  ///   - file: Where it is defined; captured for you.
  ///   - line: Where it is defined; captured for you.
  ///   - define: Registers the scope's loaders and nested scopes.
  public mutating func defineScope<Nested: FeaturesScope>(
    _ scope: Nested.Type, file: StaticString = #fileID, line: UInt = #line,
    _ define: (inout FeaturesRegistry<Nested>) -> Void
  ) {
    let id = ObjectIdentifier(scope)
    let index: Int
    if let defined = content.scopeIndices[id] {
      index = defined
    } else {
      index = content.scopes.count
      content.scopes.append(ScopeContent(scope: scope, location: SourceLocation(fileID: file, line: line)))
      content.scopeIndices[id] = index
    }
    // Moved out, not copied: the nested registry then owns its arrays and appends without copying them.
    var registry = FeaturesRegistry<Nested>(content: content.scopes[index])
    content.scopes[index] = ScopeContent(scope: scope, location: nil)
    define(&registry)
    content.scopes[index] = registry.content
  }
}

extension FeaturesRegistry where Scope == RootFeaturesScope {
  /// Registers the value of a static feature for the whole tree.
  ///
  /// ```swift
  /// registry.use(Clock(now: { 0 }))
  /// ```
  ///
  /// - Parameters:
  ///   - value: The feature's one value.
  ///   - file: Where it is registered; captured for you.
  ///   - line: Where it is registered; captured for you.
  public mutating func use<F: StaticFeature>(_ value: F, file: StaticString = #fileID, line: UInt = #line) {
    let location = SourceLocation(fileID: file, line: line)
    let registration = Registration(
      feature: F.self, lifetime: .static, payload: Box(value), isAsync: false, implementation: .value(of: F.self),
      location: location)
    content.register(registration, at: location)
  }
}

/// What one scope's registry collected: registrations with their sites, and nested scopes.
struct ScopeContent {
  let scope: any FeaturesScope.Type
  let location: SourceLocation?
  /// Every registration, in order, already bound to this scope: the definition keeps these objects
  /// (see ``ScopeDefinition/init(_:parentTable:parentPath:observer:renewals:reporting:)``), so registering
  /// appends one reference rather than a registration and its site, to be copied again later.
  var bindings: [Binding] = []
  /// What `beforeServing` named, in order.
  var startWork: [StartWork] = []
  /// The values `set(_:to:)` gave properties, in order: the last for a property wins.
  var properties: [PropertySetting] = []
  var scopes: [ScopeContent] = []
  /// The index in `scopes` of each nested scope, so that defining one is not a search.
  var scopeIndices: [ObjectIdentifier: Int] = [:]

  /// Registers `registration`, made with `registry.use(...)` at `site`.
  mutating func register(
    _ registration: Registration, at site: SourceLocation,
    lifecycle: Binding.LifecycleOptions = Binding.LifecycleOptions()
  ) {
    bindings.append(Binding(registration: registration, site: site, scope: scope, conflicts: [], lifecycle: lifecycle))
  }
}

/// Work a registry named with `beforeServing`: run once by a start, after the eager loads.
package struct StartWork: Sendable {
  /// The work, given the started branch's features.
  let run: @Sendable (Features) async throws -> Void
  /// How long it may take, if limited.
  let timeLimit: Duration?
  /// Where `beforeServing` was called.
  let site: SourceLocation
}
