extension Features {
  /// Starts this branch before it serves: loads every eager feature its scope registers, then runs
  /// its scope's before-serving work.
  ///
  /// The eager features (`registry.use(loader, eager: true)`) of this branch's scope (the root's
  /// registry, for the root; a session scope's, for a session) load at once, each after the
  /// features it requests, since a load requests what it needs first: independent ones
  /// concurrently, shared ones once. Then the work named with
  /// ``FeaturesRegistry/beforeServing(timeLimit:file:line:_:)`` runs, in order (migrations). A
  /// start runs once: a second call, concurrent or later, waits for it and gets its outcome.
  ///
  /// A start fails whole: when a load or a work fails or passes its time limit, `start` throws one
  /// diagnostic listing every failure with its path, and closes the branch, so that what had
  /// started is torn down, in reverse dependency order. A load past its limit ends the start: the
  /// eager loads still running then (one that waits for it, say) are reported, not waited for.
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
  /// A start is never made from lifecycle work (a loader, a teardown, a before-serving work, a keyed
  /// branch's making): it waits for loads and work, and could wait for itself. There it throws
  /// ``LifecycleWorkReentered`` at once.
  ///
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
