extension Features {
  /// Resolves a feature if this branch can see a registration of it, and gives `nil` if it cannot.
  ///
  /// For code that uses a feature only when the app registered one (a plug-in, an optional
  /// integration). `nil` means exactly one thing: no scope on this branch's path registers the
  /// feature. Every other failure still throws: a loader that fails, a cycle, a conflict, released
  /// features. In a test container, a feature is defined when the container replaces it for every
  /// context (`use(_:)`) or patches it (or, in a copy of a real tree, when the tree registers it); a
  /// feature that is only a placeholder gives `nil`. Validation (`validate`) does not count an
  /// optional feature that nothing registers as a problem.
  ///
  /// ```swift
  /// if let analytics: Analytics = try features.instanceIfDefined(context: "checkout") {
  ///   analytics.track("opened")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - context: The context passed to the loader, and for a cacheable, the key of its instance.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance, or `nil` when no registration is visible from this branch.
  /// - Throws: Every error of ``instance(of:context:file:line:)`` but ``FeatureUndefined``.
  public func instanceIfDefined<F: Feature>(
    of feature: F.Type = F.self, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F? {
    if let branch = retainedBranch, let instance = Branch.peek(feature, in: branch) { return instance }
    switch try definition(of: feature, context: context, at: SourceLocation(fileID: file, line: line)) {
    case .undefined: return nil
    case .replaced(let instance): return instance
    case .registered: return try instance(of: feature, context: context, file: file, line: line)
    }
  }

  /// Resolves a feature that takes no context if this branch can see a registration of it.
  ///
  /// ```swift
  /// let analytics: Analytics? = try features.instanceIfDefined()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance, or `nil` when no registration is visible from this branch.
  /// - Throws: See ``instanceIfDefined(of:context:file:line:)``.
  public func instanceIfDefined<F: Feature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F? where F.Context == Void {
    try instanceIfDefined(of: feature, context: (), file: file, line: line)
  }

  /// Resolves a cacheable feature that takes no context if this branch can see a registration of it.
  ///
  /// ```swift
  /// let metrics: Metrics? = try features.instanceIfDefined()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance, or `nil` when no registration is visible from this branch.
  /// - Throws: See ``instanceIfDefined(of:context:file:line:)``.
  public func instanceIfDefined<F: CacheableFeature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F? where F.Context == NoContext {
    try instanceIfDefined(of: feature, context: NoContext(), file: file, line: line)
  }

  /// Resolves a feature if this branch can see a registration of it, running async loaders.
  ///
  /// ```swift
  /// let search: Search? = try await features.instanceIfDefined(context: .products)
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - context: The context passed to the loader, and for a cacheable, the key of its instance.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: The instance, or `nil` when no registration is visible from this branch.
  /// - Throws: Every error of ``instance(of:context:file:line:isolation:)`` but
  ///   ``FeatureUndefined``.
  public func instanceIfDefined<F: Feature>(
    of feature: F.Type = F.self, context: F.Context, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F? {
    if let branch = retainedBranch, let instance = Branch.peek(feature, in: branch) { return instance }
    switch try definition(of: feature, context: context, at: SourceLocation(fileID: file, line: line)) {
    case .undefined: return nil
    case .replaced(let instance): return instance
    case .registered:
      return try await instance(of: feature, context: context, file: file, line: line, isolation: isolation)
    }
  }

  /// Resolves a feature that takes no context if this branch can see a registration of it, running
  /// async loaders.
  ///
  /// ```swift
  /// let analytics: Analytics? = try await features.instanceIfDefined()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: The instance, or `nil` when no registration is visible from this branch.
  /// - Throws: See ``instanceIfDefined(of:context:file:line:isolation:)``.
  public func instanceIfDefined<F: Feature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F? where F.Context == Void {
    try await instanceIfDefined(of: feature, context: (), file: file, line: line, isolation: isolation)
  }

  /// Resolves a cacheable feature that takes no context if this branch can see a registration of it,
  /// running an async loader.
  ///
  /// ```swift
  /// let database: Database? = try await features.instanceIfDefined()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: The instance, or `nil` when no registration is visible from this branch.
  /// - Throws: See ``instanceIfDefined(of:context:file:line:isolation:)``.
  public func instanceIfDefined<F: CacheableFeature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F? where F.Context == NoContext {
    try await instanceIfDefined(of: feature, context: NoContext(), file: file, line: line, isolation: isolation)
  }

  /// The context of the nearest branch of `scope`, or `nil` when no branch on the path is of `scope`.
  ///
  /// For code that tags whatever is present (a logger that names the session or the request when
  /// there is one). Unlike `try? context(for:)`, it still throws when the features cannot answer.
  /// In a test container, a context given with `use(context:for:)` counts as present.
  ///
  /// ```swift
  /// let session = try features.context(ifPresent: SessionScope.self)  // Session?
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope whose context to read.
  ///   - file: Where it is read; captured for you.
  ///   - line: Where it is read; captured for you.
  /// - Returns: The context the branch of `scope` was made with, or `nil`.
  /// - Throws: ``FeaturesClosed`` or ``FeaturesReleased``.
  public func context<Scope: FeaturesScope>(
    ifPresent scope: Scope.Type, file: StaticString = #fileID, line: UInt = #line
  ) throws -> Scope.Context? {
    if let context = borrowedBranch?.borrow({ $0.context(in: scope) }) { return context }
    return try withOpenBranch(.readingContext(scope), at: SourceLocation(fileID: file, line: line)) { branch in
      branch.path.context(for: scope) ?? branch.overrides?.context(for: scope)
    }
  }

  /// Whether a request for `feature` here would find a registration, or a test container's
  /// replacement (which it returns).
  private func definition<F: Feature>(
    of feature: F.Type, context: F.Context, at location: SourceLocation
  ) throws -> Definition<F> {
    try withOpenBranch(.resolving(feature), at: location) { branch in
      let isRegistered = branch.table.entry(for: FeatureTable.key(feature)) != nil
      guard let overrides = branch.overrides else { return isRegistered ? .registered : .undefined }
      // Unregistered, only a test container's replacement of every request defines it; asking the
      // overrides anyway would make a validation count an optional feature as a missing one.
      guard isRegistered || overrides.replaces(feature) else { return .undefined }
      if let instance = overrides.instance(of: feature, context: context, in: branch, at: location) {
        return .replaced(instance)
      }
      return isRegistered ? .registered : .undefined
    }
  }

  private enum Definition<F> {
    /// No registration is visible, and no test container replaces it.
    case undefined
    /// A test container replaces it with this instance.
    case replaced(F)
    /// A registration is visible: a request resolves it.
    case registered
  }
}
