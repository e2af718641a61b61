extension Features {
  /// Closes the branch of these features: tears down what it built, in order, and refuses new work.
  ///
  /// From its start, requests through this branch or one below throw ``FeaturesClosed``. Branches
  /// below close first; then every `teardown:` here runs, newest first, once loads in flight ended,
  /// even when one throws. A second call sees the one close's outcome; cancelling the caller stops
  /// no teardown; with nothing to tear down it does not suspend. From lifecycle work (a loader, a
  /// teardown, a before-serving work, a keyed branch's making), it starts or joins the close and
  /// returns at once, and failures go to ``IssueReporting``.
  ///
  /// ```swift
  /// try await session.close()   // at the end of a session
  /// try await root.close()      // on shutdown
  /// ```
  ///
  /// - Parameters:
  ///   - file: Where it is closed; captured for you.
  ///   - line: Where it is closed; captured for you.
  ///   - isolation: The caller's actor, captured for you: the close starts there.
  /// - Throws: ``TeardownFailed`` when a teardown threw; ``FeaturesReleased`` when these are a
  ///   loader's features and their branch was released.
  @inlinable
  public func close(
    file: StaticString = #fileID, line: UInt = #line, isolation: isolated (any Actor)? = #isolation
  ) async throws {
    let location = SourceLocation(fileID: file, line: line)
    let branch = try branch(at: location).closeTarget
    // Inlined: a close with nothing to do makes no async call.
    guard let remainder = CloseRemainder.start(closing: branch, at: location) else { return }
    try await remainder.complete(closing: branch, at: location, isolation: isolation)
  }

  /// Makes a branch of `scope`, runs `body` with it, and closes it when `body` returns or throws.
  ///
  /// The way to scope a request: its instances live as long as `body` runs, and their teardowns run
  /// before this returns, also when the task is cancelled.
  ///
  /// ```swift
  /// try await root.withBranch(RequestScope.self, context: request) { request in
  ///   let handler: Handler = try await request.instance()
  ///   try await handler.handle()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope of the new branch.
  ///   - context: The branch's context.
  ///   - file: Where the branch is made and closed; captured for you.
  ///   - line: Where the branch is made and closed; captured for you.
  ///   - isolation: The caller's actor, captured for you: `body` runs there.
  ///   - body: The work to do in the branch.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` threw; otherwise ``TeardownFailed`` when a teardown threw; the errors of
  ///   ``branch(_:context:file:line:)``. When `body` and the close both fail, `body`'s error is
  ///   thrown and the teardown failure is reported through ``IssueReporting``.
  @inlinable
  public func withBranch<Scope: FeaturesScope, Result>(
    _ scope: Scope.Type, context: Scope.Context, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation, _ body: nonisolated(nonsending) (Features) async throws -> Result
  ) async throws -> Result {
    // Inlinable: a value of an unknown generic type would cost a task allocation per call.
    let branch = try branch(scope, context: context, file: file, line: line)
    let result: Result
    do {
      result = try await body(branch)
    } catch {
      await branch.close(after: error, file: file, line: line, isolation: isolation)
      throw error
    }
    try await branch.close(file: file, line: line, isolation: isolation)
    return result
  }

  /// A close after a body that threw: the caller sees the body's error, so a teardown's is reported.
  @usableFromInline
  func close(after error: any Error, file: StaticString, line: UInt, isolation: isolated (any Actor)?) async {
    do { try await close(file: file, line: line, isolation: isolation) } catch {
      IssueReporting.report(Diagnostic(describing: error), severity: .failure)
    }
  }

  /// Makes a branch of a scope without context, runs `body` with it, and closes it when `body` ends.
  ///
  /// ```swift
  /// try await session.withBranch(RequestScope.self) { request in
  ///   try await request.instance(of: Handler.self).handle()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope of the new branch.
  ///   - file: Where the branch is made and closed; captured for you.
  ///   - line: Where the branch is made and closed; captured for you.
  ///   - isolation: The caller's actor, captured for you: `body` runs there.
  ///   - body: The work to do in the branch.
  /// - Returns: What `body` returned.
  /// - Throws: See ``withBranch(_:context:file:line:isolation:_:)``.
  public func withBranch<Scope: FeaturesScope, Result>(
    _ scope: Scope.Type, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation, _ body: nonisolated(nonsending) (Features) async throws -> Result
  ) async throws -> Result where Scope.Context == Void {
    try await withBranch(scope, context: (), file: file, line: line, isolation: isolation, body)
  }
}
