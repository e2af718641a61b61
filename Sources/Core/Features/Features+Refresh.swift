extension Features {
  /// Renews the cached instance of a feature, and every cached instance built from it.
  ///
  /// The instance is the one the branch that caches the feature for these features holds (this
  /// branch's, or an ancestor's). Its dependents are the instances cached in that branch or below it
  /// whose loaders received it from their features, directly or through other features. Each is
  /// forgotten at once, so no request receives it any more, and torn down, dependents first; the
  /// next request for any of them loads it anew, exactly once, as a first request does.
  ///
  /// ```swift
  /// // Signing out: the token, and every client made with it, are loaded anew.
  /// let renewed = try await session.refresh(AuthToken.self)
  /// ```
  ///
  /// Refreshes of one tree run one after another. A request that races a refresh receives the
  /// instance from before it or the new one, never one whose teardown has started. A refresh of a
  /// feature that has no cached instance renews nothing. A refresh waits for loads and teardowns, so
  /// lifecycle work (a loader, a teardown, a before-serving work, a keyed branch's making) never
  /// makes one: there it throws ``LifecycleWorkReentered`` at once.
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

  /// Renews the cached instance of a feature that takes no context, and every cached instance built
  /// from it; see ``refresh(_:context:file:line:)``.
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

  /// A refresh of a static or disposable feature that takes no context: it always throws
  /// ``FeatureNotRenewable``, which says how to renew instead.
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
