extension Features {
  /// Makes a branch of `scope` below this one, carrying `context`.
  ///
  /// The branch sees its scope's registrations first, then this branch's, up to the root. It caches
  /// its own instances of the cacheables its scope registers; dropping the returned value (and every
  /// branch made from it) frees them. `scope` must be defined, with
  /// ``FeaturesRegistry/defineScope(_:file:line:_:)``, in this branch's scope or an ancestor's; the
  /// nearest definition applies.
  ///
  /// ```swift
  /// let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope of the new branch.
  ///   - context: What the branch is about; its loaders read it with ``context(for:file:line:)``.
  ///   - file: Where the branch is made; captured for you.
  ///   - line: Where the branch is made; captured for you.
  /// - Returns: The features of the new branch.
  /// - Throws: ``FeaturesScopeUndefined`` when neither this branch's scope nor an ancestor's defines `scope`;
  ///   ``FeaturesClosed`` once this branch is closed; ``FeaturesReleased``.
  @inlinable
  public func branch<Scope: FeaturesScope>(
    _ scope: Scope.Type, context: Scope.Context, file: StaticString = #fileID, line: UInt = #line
  ) throws -> Features {
    let location = SourceLocation(fileID: file, line: line)
    return try withBranch(at: location) { branch in
      Features(adopting: try branch.branch(scope, context: context, holdsParent: holdsBranch, at: location))
    }
  }

  /// Makes a branch of a scope whose branches carry no context.
  ///
  /// ```swift
  /// let request = try session.branch(RequestScope.self)
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope of the new branch.
  ///   - file: Where the branch is made; captured for you.
  ///   - line: Where the branch is made; captured for you.
  /// - Returns: The features of the new branch.
  /// - Throws: See ``branch(_:context:file:line:)``.
  @inlinable
  public func branch<Scope: FeaturesScope>(
    _ scope: Scope.Type, file: StaticString = #fileID, line: UInt = #line
  ) throws -> Features where Scope.Context == Void {
    try branch(scope, context: (), file: file, line: line)
  }

  /// The context of the nearest branch of `scope`: this branch or an ancestor.
  ///
  /// A cacheable registered above `scope` is loaded in that ancestor and cannot see the context;
  /// register it in `scope` if it needs it.
  ///
  /// ```swift
  /// let session = try features.context(for: SessionScope.self)
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope whose context to read.
  ///   - file: Where it is read; captured for you.
  ///   - line: Where it is read; captured for you.
  /// - Returns: The context the branch of `scope` was made with.
  /// - Throws: ``FeaturesScopeContextUnavailable`` when no branch on the path is of `scope`;
  ///   ``FeaturesReleased``.
  @inlinable
  public func context<Scope: FeaturesScope>(
    for scope: Scope.Type, file: StaticString = #fileID, line: UInt = #line
  ) throws -> Scope.Context {
    // Inlined: the context a branch of `scope` on the path keeps typed is read in place.
    // A closed branch answers `nil`, and the slow way throws.
    if let context = borrowedBranch?.borrow({ $0.context(in: scope) }) { return context }
    return try contextSlowly(for: scope, at: SourceLocation(fileID: file, line: line))
  }

  /// ``context(for:file:line:)`` from the path, a test container's contexts, or the error.
  @usableFromInline
  func contextSlowly<Scope: FeaturesScope>(for scope: Scope.Type, at location: SourceLocation) throws -> Scope.Context {
    try withOpenBranch(.readingContext(scope), at: location) { branch in
      if let context = branch.path.context(for: scope) ?? branch.overrides?.context(for: scope) { return context }
      throw FeaturesScopeContextUnavailable(scope, in: branch, frames: LoadingThread.currentPath, at: location)
    }
  }

  /// Checks that this branch is, or descends from, a branch of `scope`.
  ///
  /// ```swift
  /// try features.require(SessionScope.self)
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope that must be on this branch's path.
  ///   - file: Where it is checked; captured for you.
  ///   - line: Where it is checked; captured for you.
  /// - Throws: ``FeaturesScopeUndefined`` when it is not; ``FeaturesReleased``.
  public func require<Scope: FeaturesScope>(
    _ scope: Scope.Type, file: StaticString = #fileID, line: UInt = #line
  ) throws {
    let location = SourceLocation(fileID: file, line: line)
    try withOpenBranch(.using("the scope path"), at: location) { branch in
      if branch.path.nearest(scope) != nil || branch.overrides?.context(for: scope) != nil { return }
      throw FeaturesScopeUndefined(requiring: scope, in: branch, at: location)
    }
  }
}
