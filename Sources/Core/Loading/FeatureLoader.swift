/// An implementation of a feature: how to load it, with its name and where it was written.
///
/// Build loaders with ``disposable(implementation:file:line:_:)-1oilv``,
/// ``cacheable(implementation:file:line:timeToLive:_:teardown:)-438aw`` and their `(context, features)`
/// forms, or from a type with ``implementation(_:file:line:)-7f4r1``, and register them with
/// ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``. A loader may throw; the error is the
/// cause of a ``FeatureLoadingFailed`` and nothing is cached.
///
/// ```swift
/// extension Printer {
///   static func console() -> FeatureLoader {
///     .disposable { features in Printer(print: { Swift.print($0) }) }
///   }
/// }
/// ```
public struct FeatureLoader: Sendable {
  package let registration: Registration

  init<F: Feature>(
    _ lifetime: Lifetime, of feature: F.Type, implementation: ImplementationName, location: SourceLocation,
    load: @escaping @Sendable (F.Context, Features) throws -> F,
    teardown: (@Sendable (F) async throws -> Void)? = nil, timeToLive: Duration? = nil
  ) {
    registration = Registration(
      feature: feature, lifetime: lifetime, payload: Loader(load), isAsync: false,
      implementation: implementation, location: location, teardown: Arbor.teardown(teardown),
      timeToLive: timeToLive
    )
  }

  /// A loader whose closure takes no context: kept as written, so loading calls it directly.
  init<F: Feature>(
    _ lifetime: Lifetime, of feature: F.Type, implementation: ImplementationName, location: SourceLocation,
    loadWithoutContext load: @escaping @Sendable (Features) throws -> F,
    teardown: (@Sendable (F) async throws -> Void)? = nil, timeToLive: Duration? = nil
  ) {
    registration = Registration(
      feature: feature, lifetime: lifetime, payload: Loader(withoutContext: load), isAsync: false,
      implementation: implementation, location: location, teardown: Arbor.teardown(teardown),
      timeToLive: timeToLive
    )
  }

  /// Whether instances of this loader's feature are torn down when their branch closes.
  package var hasTeardown: Bool { registration.teardown != nil }

  /// The implementation's name: `Printer.console()`.
  package var implementation: String { registration.implementation }
  /// Where the loader was written.
  package var location: SourceLocation { registration.location }
}

extension FeatureLoader {
  /// A loader that makes a new instance of a disposable feature for every request.
  ///
  /// The closure receives the features of the requesting branch. Keep them, if the instance needs
  /// them later: they do not keep the branch alive.
  ///
  /// ```swift
  /// static func console() -> FeatureLoader {
  ///   .disposable { features in Printer(print: { Swift.print($0) }) }
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
    _ load: @escaping @Sendable (_ features: Features) throws -> F
  ) -> FeatureLoader where F.Context == Void {
    FeatureLoader(
      .disposable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), loadWithoutContext: load
    )
  }

  /// A loader that makes a new instance of a disposable feature for every request, from its context.
  ///
  /// ```swift
  /// static func tagged() -> FeatureLoader {
  ///   .disposable { (tag: String, features) in Logger(log: { print("[\(tag)] \($0)") }) }
  /// }
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
    _ load: @escaping @Sendable (_ context: F.Context, _ features: Features) throws -> F
  ) -> FeatureLoader {
    FeatureLoader(
      .disposable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), load: load
    )
  }

  /// A loader of a cacheable feature: it runs once per branch whose scope registers it, and the
  /// instance is cached there until the branch is closed or released.
  ///
  /// Concurrent first requests run it once. The closure receives the features of the branch the
  /// instance lives in; they do not keep that branch alive. A `teardown` runs once for the
  /// instance when that branch closes (``Features/close(file:line:isolation:)``), with the instances loaded
  /// after it torn down first.
  ///
  /// ```swift
  /// static func live() -> FeatureLoader {
  ///   .cacheable { features in
  ///     let session = try features.context(for: SessionScope.self)
  ///     return Greeter(greet: { print("Hello \(session.user)") })
  ///   }
  /// }
  /// static func file() -> FeatureLoader {
  ///   .cacheable { features in
  ///     LogFile.open("app.log")
  ///   } teardown: { file in
  ///     try await file.close()
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
    _ load: @escaping @Sendable (_ features: Features) throws -> F,
    teardown: (@Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader where F.Context == NoContext {
    FeatureLoader(
      .cacheable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), loadWithoutContext: load, teardown: teardown,
      timeToLive: timeToLive
    )
  }

  /// A loader of a cacheable feature with a context: one instance per branch and context value.
  ///
  /// A `teardown` runs once for each instance, whatever its context, when its branch closes.
  ///
  /// ```swift
  /// static func live() -> FeatureLoader {
  ///   .cacheable { (id: Account.ID, features) in Account(id: id, features: features) }
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
  ///   - load: Makes the instance for one context value from the features it may use.
  ///   - teardown: Releases what an instance holds when its branch closes; `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    implementation: String = #function, file: StaticString = #fileID, line: UInt = #line,
    timeToLive: Duration? = nil,
    _ load: @escaping @Sendable (_ context: F.Context, _ features: Features) throws -> F,
    teardown: (@Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader {
    FeatureLoader(
      .cacheable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), load: load, teardown: teardown, timeToLive: timeToLive
    )
  }
}
