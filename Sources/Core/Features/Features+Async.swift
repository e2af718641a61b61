extension Features {
  /// Resolves any feature, running async loaders: suspends while one loads, blocks no thread.
  ///
  /// Features with synchronous loaders resolve as ``instance(of:context:file:line:)`` does. For an
  /// async cacheable, concurrent first requests run its loader once, in a task of its own: a
  /// requester that is cancelled stops waiting with `CancellationError`, while the load goes on for
  /// the others and is cached when it succeeds.
  ///
  /// ```swift
  /// let database: Database = try await features.instance(context: .primary)
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - context: The context passed to the loader, and for a cacheable, the key of its instance.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you: the request runs there, so awaiting a
  ///     cached instance costs no switch of executors (a load it starts runs off it).
  /// - Returns: The instance.
  /// - Throws: The errors of ``instance(of:context:file:line:)``, and `CancellationError` when the
  ///   requesting task is cancelled while it waits.
  @inlinable @inline(__always)
  public func instance<F: Feature>(
    of feature: F.Type = F.self, context: F.Context, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F {
    // Inlined, and on the caller's executor: a cached instance or a static value is read as the
    // synchronous request reads it, with no async call and no switch of executors.
    if let branch = retainedBranch, let instance = Branch.peek(feature, in: branch) {
      return instance
    }
    let location = SourceLocation(fileID: file, line: line)
    // A synchronous loader runs here, as the synchronous request runs it: no async call, whose
    // frames would hold the generic values of the feature and its context in task memory.
    if let instance = try resolveUnlessAsync(feature, context: context, at: location) { return instance }
    return try await resolveAsync(feature, context: context, at: location)
  }

  /// Resolves through the branch of these features without suspending; `nil` when the feature's
  /// loader is asynchronous.
  @inlinable @inline(never)
  func resolveUnlessAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F? {
    let epoch = holdsBranch ? nil : LoadingThread.currentReference.borrow(Self.renewalEpoch)
    return try withBranch(at: location) { branch in
      guard let instance = try branch.resolveUnlessAsync(feature, context: context, at: location) else { return nil }
      // A loader's request: what it receives is recorded for the load.
      if let epoch {
        LoadingThread.currentReference.borrow {
          $0.recordReceived(feature, context: context, through: branch, epoch: epoch)
        }
      }
      return instance
    }
  }

  /// Resolves through the branch of these features, running async loaders.
  @usableFromInline
  func resolveAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) async throws -> F {
    let epoch = holdsBranch ? nil : Self.renewalEpoch(recordingOn: .current)
    return try await withBranch(at: location) { branch in
      let instance = try await AsyncRequest(feature, context: context, in: branch, at: location).resolve()
      if let epoch { LoadingThread.current.recordReceived(feature, context: context, through: branch, epoch: epoch) }
      return instance
    }
  }

  /// Resolves any feature that takes no context, running async loaders.
  ///
  /// ```swift
  /// let config: RemoteConfig = try await features.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you: the request runs there, so awaiting a
  ///     cached instance costs no switch of executors (a load it starts runs off it).
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:isolation:)``.
  @inlinable @inline(__always)
  public func instance<F: Feature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F where F.Context == Void {
    try await instance(of: feature, context: (), file: file, line: line, isolation: isolation)
  }

  /// Resolves a cacheable feature that takes no context, running an async loader once per branch.
  ///
  /// ```swift
  /// let database: Database = try await features.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you: the request runs there, so awaiting a
  ///     cached instance costs no switch of executors (a load it starts runs off it).
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:isolation:)``.
  @inlinable @inline(__always)
  public func instance<F: CacheableFeature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F where F.Context == NoContext {
    try await instance(of: feature, context: NoContext(), file: file, line: line, isolation: isolation)
  }
}
