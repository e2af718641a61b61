import Dispatch

extension FeatureLoader {
  /// A loader isolated to the main actor: its closure may build main-actor types and call their
  /// initialisers, and its teardown runs on the main actor too.
  ///
  /// A synchronous request made on the main actor runs it there, in place; an awaited request made
  /// anywhere else hops to the main actor to run it. A synchronous request made off the main actor
  /// gets the cached instance, if there is one, and otherwise throws ``FeatureRequiresMainActor``:
  /// the loader never runs off the main actor.
  init<F: Feature>(
    _ lifetime: Lifetime, of feature: F.Type, implementation: ImplementationName, location: SourceLocation,
    onMainActor load: @escaping @MainActor @Sendable (F.Context, Features) throws -> F,
    teardown: (@MainActor @Sendable (F) async throws -> Void)?, timeToLive: Duration?
  ) {
    registration = Registration(
      feature: feature, lifetime: lifetime,
      payload: Loader<F> { context, features in
        // Every request checks that it runs on the main actor before it claims the load; this
        // guard only keeps a wrong call from trapping.
        guard MainQueue.isCurrent() else { throw OffMainActor() }
        return try MainActor.assumeIsolated { try load(context, features) }
      },
      isAsync: false, runsOnMainActor: true, implementation: implementation, location: location,
      teardown: Self.mainActorTeardown(teardown), timeToLive: timeToLive
    )
  }

  /// An async loader isolated to the main actor: it runs there whoever awaits it.
  init<F: Feature>(
    _ lifetime: Lifetime, of feature: F.Type, implementation: ImplementationName, location: SourceLocation,
    onMainActorAsync load: @escaping @MainActor @Sendable (F.Context, Features) async throws -> F,
    teardown: (@MainActor @Sendable (F) async throws -> Void)?, timeToLive: Duration?
  ) {
    registration = Registration(
      feature: feature, lifetime: lifetime,
      payload: AsyncLoader<F> { context, features in try await load(context, features) },
      isAsync: true, runsOnMainActor: true, implementation: implementation, location: location,
      teardown: Self.mainActorTeardown(teardown), timeToLive: timeToLive
    )
  }

  /// A teardown that runs on the main actor, whoever runs the close.
  private static func mainActorTeardown<F: Feature>(
    _ run: (@MainActor @Sendable (F) async throws -> Void)?
  ) -> Teardown<F>? {
    guard let run else { return nil }
    return Teardown { instance in try await run(instance) }
  }

  /// A loader that makes a new instance of a disposable feature for every request, on the main
  /// actor.
  ///
  /// ```swift
  /// static func live() -> FeatureLoader {
  ///   .disposable(on: MainActor.self) { features in
  ///     ToastPresenter(show: { message in Toasts.shared.show(message) })
  ///   }
  /// }
  /// ```
  ///
  /// A synchronous request made on the main actor runs it there; an awaited one made elsewhere
  /// hops to the main actor; a synchronous one made elsewhere throws ``FeatureRequiresMainActor``.
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader runs on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - load: Makes the instance, on the main actor, from the features it may use.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func disposable<F: DisposableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line, _ load: @escaping @MainActor @Sendable (_ features: Features) throws -> F
  ) -> FeatureLoader where F.Context == Void {
    disposable(on: actor, implementation: implementation, file: file, line: line) { (_: Void, features) in
      try load(features)
    }
  }

  /// A loader that makes a new instance of a disposable feature for every request, from its
  /// context, on the main actor.
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader runs on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - load: Makes the instance, on the main actor, from the request's context and the features
  ///     it may use.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func disposable<F: DisposableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line,
    _ load: @escaping @MainActor @Sendable (_ context: F.Context, _ features: Features) throws -> F
  ) -> FeatureLoader {
    FeatureLoader(
      .disposable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), onMainActor: load, teardown: nil, timeToLive: nil)
  }

  /// A loader of a cacheable feature that runs on the main actor, once per branch; its teardown
  /// runs on the main actor too.
  ///
  /// ```swift
  /// static func live() -> FeatureLoader {
  ///   .cacheable(on: MainActor.self) { features in
  ///     let model = SettingsModel(store: try features.instance())
  ///     return Settings(model: model)
  ///   } teardown: { settings in
  ///     settings.model.stopObserving()
  ///   }
  /// }
  /// ```
  ///
  /// A synchronous request made on the main actor loads it there, in place; an awaited request
  /// made elsewhere hops to the main actor to load it. Once cached, the instance is served to
  /// every request, from any thread. A synchronous request made off the main actor before it is
  /// cached throws ``FeatureRequiresMainActor``: the loader never runs off the main actor.
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader and the teardown run on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - timeToLive: How long an instance serves before the first request that finds it older
  ///     renews it, with the instances built from it; `nil`, the default, for as long as its
  ///     branch lives. Ages are measured on the root's clock.
  ///   - load: Makes the instance, on the main actor, from the features it may use.
  ///   - teardown: Releases what an instance holds when its branch closes, on the main actor;
  ///     `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line, timeToLive: Duration? = nil,
    _ load: @escaping @MainActor @Sendable (_ features: Features) throws -> F,
    teardown: (@MainActor @Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader where F.Context == NoContext {
    cacheable(
      on: actor, implementation: implementation, file: file, line: line, timeToLive: timeToLive,
      { (_: NoContext, features) in try load(features) }, teardown: teardown)
  }

  /// A loader of a cacheable feature with a context that runs on the main actor, once per branch
  /// and context value; its teardown runs on the main actor too.
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader and the teardown run on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - timeToLive: How long an instance serves before the first request that finds it older
  ///     renews it; `nil`, the default, for as long as its branch lives.
  ///   - load: Makes the instance for one context value, on the main actor.
  ///   - teardown: Releases what an instance holds when its branch closes, on the main actor;
  ///     `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line, timeToLive: Duration? = nil,
    _ load: @escaping @MainActor @Sendable (_ context: F.Context, _ features: Features) throws -> F,
    teardown: (@MainActor @Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader {
    FeatureLoader(
      .cacheable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), onMainActor: load, teardown: teardown,
      timeToLive: timeToLive)
  }

  /// An async loader of a disposable feature that takes no context and runs on the main actor:
  /// only `try await features.instance()` runs it, and it hops to the main actor to do so.
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader runs on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - load: Makes the instance, on the main actor, from the features it may use.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func disposable<F: DisposableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line, _ load: @escaping @MainActor @Sendable (_ features: Features) async throws -> F
  ) -> FeatureLoader where F.Context == Void {
    disposable(on: actor, implementation: implementation, file: file, line: line) {
      (_: Void, features) async throws in try await load(features)
    }
  }

  /// An async loader of a cacheable feature that takes no context and runs on the main actor, once
  /// per branch: only `try await features.instance()` runs it, on the main actor, and its teardown
  /// runs there too.
  ///
  /// ```swift
  /// static func restored() -> FeatureLoader {
  ///   .cacheable(on: MainActor.self) { features async throws in
  ///     Settings(model: try await SettingsModel.restore())
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader and the teardown run on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - timeToLive: How long an instance serves before the first request that finds it older
  ///     renews it; `nil`, the default, for as long as its branch lives.
  ///   - load: Makes the instance, on the main actor, from the features it may use.
  ///   - teardown: Releases what an instance holds when its branch closes, on the main actor;
  ///     `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line, timeToLive: Duration? = nil,
    _ load: @escaping @MainActor @Sendable (_ features: Features) async throws -> F,
    teardown: (@MainActor @Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader where F.Context == NoContext {
    cacheable(
      on: actor, implementation: implementation, file: file, line: line, timeToLive: timeToLive,
      { (_: NoContext, features) async throws in try await load(features) }, teardown: teardown)
  }

  /// An async loader of a disposable feature that runs on the main actor: only
  /// `try await features.instance()` runs it, and it hops to the main actor to do so.
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader runs on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - load: Makes the instance, on the main actor, from the request's context and the features
  ///     it may use.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func disposable<F: DisposableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line,
    _ load: @escaping @MainActor @Sendable (_ context: F.Context, _ features: Features) async throws -> F
  ) -> FeatureLoader {
    FeatureLoader(
      .disposable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), onMainActorAsync: load, teardown: nil, timeToLive: nil)
  }

  /// An async loader of a cacheable feature that runs on the main actor, once per branch and
  /// context value: only `try await features.instance()` runs it, on the main actor, and its
  /// teardown runs there too.
  ///
  /// ```swift
  /// .cacheable(on: MainActor.self) { (id: Document.ID, features) async throws in
  ///   try await DocumentModel.open(id)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - actor: `MainActor.self`: the loader and the teardown run on the main actor.
  ///   - implementation: The name diagnostics use; defaults to the enclosing function's.
  ///   - file: Where the loader is written; captured for you.
  ///   - line: Where the loader is written; captured for you.
  ///   - timeToLive: How long an instance serves before the first request that finds it older
  ///     renews it; `nil`, the default, for as long as its branch lives.
  ///   - load: Makes the instance for one context value, on the main actor.
  ///   - teardown: Releases what an instance holds when its branch closes, on the main actor;
  ///     `nil` for none.
  /// - Returns: A loader to register with ``FeaturesRegistry/use(_:eager:startTimeLimit:teardownTimeLimit:file:line:)``.
  public static func cacheable<F: CacheableFeature>(
    on actor: MainActor.Type, implementation: String = #function, file: StaticString = #fileID,
    line: UInt = #line, timeToLive: Duration? = nil,
    _ load: @escaping @MainActor @Sendable (_ context: F.Context, _ features: Features) async throws -> F,
    teardown: (@MainActor @Sendable (_ instance: F) async throws -> Void)? = nil
  ) -> FeatureLoader {
    FeatureLoader(
      .cacheable, of: F.self, implementation: .member(implementation, of: F.self),
      location: SourceLocation(fileID: file, line: line), onMainActorAsync: load, teardown: teardown,
      timeToLive: timeToLive)
  }
}

/// Whether code runs on the main actor, asked without trapping: Swift has no such question, so
/// this asks Dispatch whether the code runs on the main queue, which is where the main actor runs
/// its work (the main thread, or on Linux, after `dispatchMain()`, the thread that serves the queue).
@usableFromInline
package enum MainQueue {
  /// A mark only the main queue carries.
  private static let mark: DispatchSpecificKey<Bool> = {
    let mark = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: mark, value: true)
    return mark
  }()

  /// Whether the calling code runs on the main queue: on the main actor.
  @usableFromInline
  package static func isCurrent() -> Bool { DispatchQueue.getSpecific(key: mark) == true }
}

/// What a main-actor loader throws if it is ever called off the main actor: every request checks
/// first and throws ``FeatureRequiresMainActor``, so this error marks a request path that forgot to.
struct OffMainActor: Error {}
