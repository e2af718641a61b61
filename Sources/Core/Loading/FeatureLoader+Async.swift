extension FeatureLoader {
  init<F: Feature>(
    _ lifetime: Lifetime, of feature: F.Type, implementation: ImplementationName, location: SourceLocation,
    loadAsync: @escaping @Sendable (F.Context, Features) async throws -> F,
    teardown: (@Sendable (F) async throws -> Void)? = nil, timeToLive: Duration? = nil
  ) {
    registration = Registration(
      feature: feature, lifetime: lifetime, payload: AsyncLoader(loadAsync), isAsync: true,
      implementation: implementation, location: location, teardown: Arbor.teardown(teardown),
      timeToLive: timeToLive
    )
  }

  /// A loader that makes a new instance of a disposable feature for every request, asynchronously.
  ///
  /// Only `try await features.instance()` can run it; a synchronous request throws
  /// ``FeatureRequiresAwait``.
  ///
  /// ```swift
  /// static func remote() -> FeatureLoader {
  ///   .disposable { features async throws in try await RemoteConfig.fetch() }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - load: Makes the instance from the features it may use.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func disposable<F: DisposableFeature>(
    implementation: String = #function, file: StaticString = #fileID, line: UInt = #line,
    _ load: @escaping @Sendable (_ features: Features) async throws -> F
  ) -> FeatureLoader where F.Context == Void {
    disposable(implementation: implementation, file: file, line: line) { (_: Void, features) async throws in
      try await load(features)
    }
  }

  /// A loader that makes a new instance of a disposable feature for every request, asynchronously,
  /// from its context.
  ///
  /// ```swift
  /// .disposable { (path: String, features) async throws in try await Document.open(path) }
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - load: Makes the instance from the request's context and the features it may use.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func disposable<F: DisposableFeature>(
    implementation: String = #function, file: StaticString = #fileID, line: UInt = #line,
    _ load: @escaping @Sendable (_ context: F.Context, _ features: Features) async throws -> F
  ) -> FeatureLoader {
    FeatureLoader(
      .disposable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), loadAsync: load)
  }

  /// A loader of a cacheable feature that loads asynchronously, once per branch.
  ///
  /// Concurrent first requests run it once; the others suspend until it finishes, and no thread
  /// blocks meanwhile. Once loaded, the instance is also served to synchronous requests. A
  /// `teardown` runs once for the instance when its branch closes.
  ///
  /// ```swift
  /// static func connected() -> FeatureLoader {
  ///   .cacheable { features async throws in
  ///     try await Database.connect()
  ///   } teardown: { database in
  ///     await database.close()
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - timeToLive: How long an instance serves before the first request that finds it older
  ///     renews it, with the instances built from it; `nil`, the default, for as long as its
  ///     branch lives. Ages are measured on the root's clock.
  ///   - load: Makes the instance from the features it may use.
  ///   - teardown: Releases what an instance holds when its branch closes; `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    implementation: String = #function, file: StaticString = #fileID, line: UInt = #line,
    timeToLive: Duration? = nil,
    _ load: @escaping @Sendable (_ features: Features) async throws -> F,
    teardown: (@Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader where F.Context == NoContext {
    cacheable(
      implementation: implementation, file: file, line: line, timeToLive: timeToLive,
      { (_: NoContext, features) async throws in try await load(features) }, teardown: teardown)
  }

  /// A loader of a cacheable feature with a context that loads asynchronously, once per branch and
  /// context value.
  ///
  /// ```swift
  /// .cacheable { (id: Account.ID, features) async throws in try await Account.fetch(id) }
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - timeToLive: How long an instance serves before the first request that finds it older
  ///     renews it, with the instances built from it; `nil`, the default, for as long as its
  ///     branch lives. Ages are measured on the root's clock.
  ///   - load: Makes the instance for one context value from the features it may use.
  ///   - teardown: Releases what an instance holds when its branch closes; `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    implementation: String = #function, file: StaticString = #fileID, line: UInt = #line,
    timeToLive: Duration? = nil,
    _ load: @escaping @Sendable (_ context: F.Context, _ features: Features) async throws -> F,
    teardown: (@Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader {
    FeatureLoader(
      .cacheable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), loadAsync: load, teardown: teardown,
      timeToLive: timeToLive)
  }
}

/// The asynchronous loading closure of one feature.
package final class AsyncLoader<F: Feature>: Sendable {
  package let load: @Sendable (F.Context, Features) async throws -> F

  init(_ load: @escaping @Sendable (F.Context, Features) async throws -> F) {
    self.load = load
  }
}
