extension Features {
  /// Checks the whole tree these features belong to, every defined scope at once, before it
  /// serves: every loader of every scope runs once, in a branch of its scope made with the
  /// contexts given, and every request it makes is checked (would it resolve from there?) and
  /// answered with the requested feature's placeholder. No other loader runs for it, and nothing
  /// is cached: after validation, real requests load for real.
  ///
  /// Validation runs the loaders' own code: a loader that opens a connection opens one. Validate
  /// a copy with those features patched instead (`TestFeatures(root)` with `use(...)` or
  /// `patch(...)`): the loaders of patched features do not run, and requests for them get the
  /// patched instance. A placeholder member a loader calls behaves as the placeholder says; an
  /// unimplemented one makes a note on that loader, not a problem.
  ///
  /// ```swift
  /// let validation = await root.validate { contexts in
  ///   contexts.use(Session(user: "check"), for: SessionScope.self)
  /// }
  /// try validation.check()
  /// ```
  ///
  /// - Parameters:
  ///   - contexts: Gives a context for each scope whose `Context` is not `Void`; a scope without
  ///     one is reported unchecked, with the scopes below it.
  ///   - file: Where validation is asked for; captured for you.
  ///   - line: Where validation is asked for; captured for you.
  /// - Returns: Every problem, the notes, and the graph of the tree.
  public func validate(
    _ contexts: (inout ValidationContexts) -> Void = { _ in }, file: StaticString = #fileID, line: UInt = #line
  ) async -> FeaturesValidation {
    let location = SourceLocation(fileID: file, line: line)
    var given = ValidationContexts()
    contexts(&given)
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
}
