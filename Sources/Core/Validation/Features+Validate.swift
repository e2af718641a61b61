extension Features {
  /// Checks the whole tree these features belong to, every defined scope at once, before it
  /// serves: every loader of every scope runs once in each place the app branches its scope, in a
  /// branch made with the contexts given, and every request it makes is checked (would it resolve
  /// from there?) and answered: with the registered value for a static feature, with the
  /// requested feature's placeholder otherwise. No other loader runs for it, and nothing is
  /// cached: after validation, real requests load for real. The tree's observer is told of none of
  /// it.
  ///
  /// A scope is checked below the scope that defines it, unless its loaders read the context of
  /// another scope validation branches (it is then checked below that scope, with a note), or
  /// the places it is branched from are declared with ``ValidationContexts/branch(_:from:)``.
  ///
  /// Validation runs the loaders' own code and the teardowns of what they return: a loader that
  /// opens a connection opens one, and its teardown closes it. A loader that should not connect
  /// while validating can ask ``isValidating``. A placeholder member a loader calls behaves as the
  /// placeholder says; an unimplemented one makes a note on that loader, not a problem.
  ///
  /// `contexts` runs on the caller's actor, before validation starts; the loaders run off it, except
  /// those registered to run on the main actor, which run there.
  ///
  /// ```swift
  /// let validation = await root.validate { contexts in
  ///   contexts.use(Session(user: "check"), for: SessionScope.self)
  /// }
  /// try validation.check()
  /// ```
  ///
  /// - Parameters:
  ///   - contexts: Gives a context for each scope whose `Context` is not `Void` (a scope without
  ///     one is reported unchecked, with the scopes below it), and declares where the app branches
  ///     a scope from where the tree does not say.
  ///   - file: Where validation is asked for; captured for you.
  ///   - line: Where validation is asked for; captured for you.
  /// - Returns: Every problem, the notes, and the graph of the tree.
  public nonisolated(nonsending) func validate(
    _ contexts: (inout ValidationContexts) -> Void = { _ in }, file: StaticString = #fileID, line: UInt = #line
  ) async -> FeaturesValidation {
    // `contexts` runs on the caller's actor: in a module whose code is main-actor by default, the
    // closure is main-actor code, and a concurrent function could not call it. The walk runs
    // concurrently, off the caller's actor.
    var given = ValidationContexts()
    contexts(&given)
    return await validate(given, at: SourceLocation(fileID: file, line: line))
  }

  /// Validates the tree with the contexts given, off the caller's actor.
  @concurrent
  private func validate(_ given: ValidationContexts, at location: SourceLocation) async -> FeaturesValidation {
    let root: Branch
    do {
      root = try withBranch(at: location) { $0.root }
    } catch {
      let released = error as? any DiagnosticError ?? Self.released(at: location)
      return FeaturesValidation(problems: [released], notes: [], graph: FeaturesGraph(scopes: [], nodes: [], edges: []))
    }
    // These features keep `root` alive until validation ends.
    defer { withExtendedLifetime(self) {} }
    let recorder = ValidationRecorder(inner: root.overrides, contexts: given)
    // Validation's branches are made from an unobserved copy of the tree's definitions: the tree's
    // observer sees nothing of them, their loads or their teardowns.
    let validationRoot = Features(
      Branch(
        definition: ScopeDefinition(unobserved: root.definition), parent: nil, path: root.path, overrides: recorder))
    var walk = ValidationWalk(recorder: recorder, contexts: given, location: location)
    await walk.run(validationRoot)
    return walk.finish()
  }

  /// Whether these features are a branch that validation made: a loader reads it to check itself
  /// without doing I/O it cannot undo, such as opening a connection while the tree is validated at
  /// start-up.
  ///
  /// ```swift
  /// static func connected() -> FeatureLoader {
  ///   .cacheable { features async throws in
  ///     let settings = try await features.instance(of: OrdersSettings.self)
  ///     if features.isValidating { return Orders(connection: nil) }
  ///     return Orders(connection: try await OrdersConnection.open(settings.url))
  ///   } teardown: { orders in
  ///     await orders.connection?.close()
  ///   }
  /// }
  /// ```
  ///
  /// `false` for the features of a released branch.
  public var isValidating: Bool {
    (try? withBranch(at: SourceLocation(fileID: #fileID, line: #line)) { $0.overrides is ValidationRecorder }) ?? false
  }
}
