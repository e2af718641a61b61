extension Features {
  /// Starts this branch before it serves: loads every eager feature its scope registers, then runs
  /// its scope's before-serving work.
  ///
  /// Eager features (`registry.use(loader, eager: true)`) load concurrently, each after what it
  /// requests; then the ``FeaturesRegistry/beforeServing(timeLimit:file:line:_:)`` work runs in
  /// order. A start runs once: a later call gets its outcome. It fails whole: one failure or time
  /// limit passed throws one diagnostic listing every failure and closes the branch. From lifecycle
  /// work (a loader, a teardown, a before-serving work, a keyed branch's making) it could wait for
  /// itself, so there it throws at once.
  ///
  /// ```swift
  /// let root = FeaturesRoot { registry in
  ///   registry.use(Database.live(), eager: true)
  ///   registry.beforeServing { features in try await features.instance(of: Database.self).migrate() }
  /// }
  /// try await root.start(timeout: .seconds(30))
  /// ```
  ///
  /// - Parameters:
  ///   - timeout: How long the whole start may take; no limit when `nil`. Each registration's
  ///     `startTimeLimit` bounds its own load within it.
  ///   - file: Where the branch is started; captured for you.
  ///   - line: Where the branch is started; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: What the start ran, each step with its duration, for a log.
  /// - Throws: ``FeaturesStartFailed``; ``FeaturesClosed`` when the branch is closed, also by a
  ///   close that raced the start; ``LifecycleWorkReentered`` from lifecycle work.
  @discardableResult
  public func start(
    timeout: Duration? = nil, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> StartEvent {
    let location = SourceLocation(fileID: file, line: line)
    return try await withBranch(at: location) { branch in
      try await StartUp.start(branch, through: self, timeout: timeout, at: location)
    }
  }
}
