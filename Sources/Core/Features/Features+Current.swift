extension Features {
  /// The features a task runs with: set by ``withCurrent(_:)``, read by
  /// ``current(file:line:)``.
  @TaskLocal static var currentInTask: Features?

  /// ``currentInTask``'s task-local, for the inlinable ``withCurrent(isolation:_:)``.
  @usableFromInline static var currentInTaskLocal: TaskLocal<Features?> { $currentInTask }

  /// Runs `body` with these features as the current features of the task.
  ///
  /// Code anywhere below `body`, including child tasks (`async let`, task groups, `Task { }`),
  /// reads them with ``current(file:line:)``. `Task.detached` does not inherit them. Nesting
  /// replaces the current features for the inner block and restores the outer ones after it.
  ///
  /// ```swift
  /// let request = try session.branch(RequestScope.self, context: id)
  /// try request.withCurrent {
  ///   try handle()  // handle() reads `try Features.current()`
  /// }
  /// ```
  ///
  /// - Parameter body: The code to run.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withCurrent<R>(_ body: () throws -> R) rethrows -> R {
    Self.willSetCurrentInTask()
    return try Self.$currentInTask.withValue(self, operation: body)
  }

  /// Runs an async `body` with these features as the current features of the task.
  ///
  /// ```swift
  /// try await request.withCurrent {
  ///   try await handle()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - isolation: The caller's isolation; inferred.
  ///   - body: The code to run.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  public func withCurrent<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async rethrows -> R {
    // Inlinable, as `withBranch` is: `R` known to the caller is not kept in task memory.
    Self.willSetCurrentInTask()
    return try await Self.currentInTaskLocal.withValue(self, operation: body, isolation: isolation)
  }

  /// The current features of the task: those of the innermost enclosing
  /// ``withCurrent(_:)``.
  ///
  /// There is no global fallback: outside such a block this throws, so a missing scope is found
  /// where it is missing rather than hidden behind a default tree.
  ///
  /// ```swift
  /// func handle() throws {
  ///   let greeter: Greeter = try Features.current().instance()
  ///   try greeter.greet()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - file: Where they are read; captured for you.
  ///   - line: Where they are read; captured for you.
  /// - Returns: The current features.
  /// - Throws: ``CurrentFeaturesUndefined`` outside any `withCurrent` block.
  public static func current(file: StaticString = #fileID, line: UInt = #line) throws -> Features {
    if let current = currentInTask { return current }
    throw CurrentFeaturesUndefined(at: SourceLocation(fileID: file, line: line))
  }
}
