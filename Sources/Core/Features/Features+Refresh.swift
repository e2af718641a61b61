extension Features {
  /// Renews the cached instance of a feature, and every cached instance built from it.
  ///
  /// Its dependents are the instances cached in its branch or below whose loaders received it,
  /// directly or not. Each is forgotten at once and torn down, dependents first; the next request
  /// loads it anew, once. Refreshes of one tree run one after another; a racing request receives the
  /// old instance or the new one, never one being torn down. From lifecycle work (a loader, a
  /// teardown, a before-serving work, a keyed branch's making) it throws at once.
  ///
  /// ```swift
  /// // Signing out: the token, and every client made with it, are loaded anew.
  /// let renewed = try await session.refresh(AuthToken.self)
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature to renew.
  ///   - context: The context of the instance to renew, for a feature cached per context.
  ///   - file: Where the refresh is made; captured for you.
  ///   - line: Where the refresh is made; captured for you.
  /// - Returns: What was renewed, dependents first and `feature` last; empty when nothing was cached.
  /// - Throws: ``FeatureNotRenewable`` for a static or disposable feature, ``FeatureUndefined``,
  ///   ``FeaturesClosed`` or ``FeaturesReleased``; ``TeardownFailed`` when teardowns threw (every
  ///   instance was renewed all the same); ``LifecycleWorkReentered`` from lifecycle work.
  public func refresh<F: Feature>(
    _ feature: F.Type, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) async throws -> [RenewedInstance] {
    let location = SourceLocation(fileID: file, line: line)
    if let work = LifecycleWork.running {
      throw LifecycleWorkReentered("refresh(\(feature))", action: "refresh \(feature)", inside: work, at: location)
    }
    do {
      return try await withBranch(at: location) { branch in
        if branch.isClosed { throw FeaturesClosed(.refreshing(feature), through: branch, requestedAt: location) }
        return try await Renewal.refresh(feature, context: context, through: branch, at: location)
      }
    } catch is FeaturesReleased {
      throw FeaturesReleased(at: location, refreshing: feature)
    }
  }

  /// Renews the cached instance of a feature without context; see ``refresh(_:context:file:line:)``.
  ///
  /// ```swift
  /// try await session.refresh(AuthToken.self)
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature to renew.
  ///   - file: Where the refresh is made; captured for you.
  ///   - line: Where the refresh is made; captured for you.
  /// - Returns: What was renewed, dependents first and `feature` last.
  /// - Throws: See ``refresh(_:context:file:line:)``.
  public func refresh<F: CacheableFeature>(
    _ feature: F.Type, file: StaticString = #fileID, line: UInt = #line
  ) async throws -> [RenewedInstance] where F.Context == NoContext {
    try await refresh(feature, context: NoContext(), file: file, line: line)
  }

  /// A refresh of a static or disposable feature: it throws ``FeatureNotRenewable``, which says how
  /// to renew instead.
  ///
  /// - Parameters:
  ///   - feature: The feature.
  ///   - file: Where the refresh is made; captured for you.
  ///   - line: Where the refresh is made; captured for you.
  /// - Returns: Never returns normally for a registered feature.
  /// - Throws: ``FeatureNotRenewable``, or the errors of ``refresh(_:context:file:line:)``.
  public func refresh<F: Feature>(
    _ feature: F.Type, file: StaticString = #fileID, line: UInt = #line
  ) async throws -> [RenewedInstance] where F.Context == Void {
    try await refresh(feature, context: (), file: file, line: line)
  }
}
