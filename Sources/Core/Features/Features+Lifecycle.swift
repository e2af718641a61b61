extension Features {
  /// Closes the branch of these features: tears down what it built, in order, and refuses new work.
  ///
  /// From the moment it starts, every request, branch and context lookup through this branch or a
  /// branch below it throws ``FeaturesClosed``; other branches are untouched. Then it closes the
  /// open branches below this one, each after the branches below it, and runs the `teardown:` of
  /// every instance cached here, newest first, once the loads in flight here have ended (they are
  /// torn down too). A teardown that throws does not stop the others: when any threw, `close()`
  /// throws ``TeardownFailed`` listing them all.
  ///
  /// It is idempotent: a second call, or a call on a branch below one being closed, waits for the
  /// one close and sees its outcome. Cancelling the calling task does not stop it: teardowns run to
  /// the end, in a task of their own that nobody cancels.
  ///
  /// Lifecycle work never waits for lifecycle work: called from a loader, a teardown, a
  /// before-serving work or a keyed branch's making (or a task one of them started), `close()`
  /// starts or joins the close and returns at once, and a teardown that throws is reported through
  /// ``IssueReporting``, as a dropped branch's skipped teardowns are.
  ///
  /// ```swift
  /// try await session.close()   // at the end of a session
  /// try await root.close()      // on shutdown
  /// ```
  ///
  /// A branch with nothing to tear down and no open branches below it (a request's branch that
  /// loaded only features without teardowns) closes at once, without suspending: called from an
  /// actor, it does not leave it.
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

  /// Makes a branch of `scope`, runs `body` with it, and closes it when `body` returns or throws,
  /// also when the task is cancelled.
  ///
  /// The way to scope a request: its instances live as long as `body` runs, and their teardowns run
  /// before this returns.
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
    // Inlinable, so that the caller's `Result` is known here: an async function keeps a value of
    // a generic type in task memory, one allocation per call.
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

  /// Closes these features after a body that threw `error`: the body's error is what the caller
  /// sees, so a teardown that fails is reported through ``IssueReporting``.
  @usableFromInline
  func close(after error: any Error, file: StaticString, line: UInt, isolation: isolated (any Actor)?) async {
    do {
      try await close(file: file, line: line, isolation: isolation)
    } catch {
      IssueReporting.report(Diagnostic(describing: error), severity: .failure)
    }
  }

  /// Makes a branch of a scope whose branches carry no context, runs `body` with it, and closes it
  /// when `body` ends.
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
