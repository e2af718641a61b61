import Arbor

extension Features {
  /// Runs a loader under test against these features, with a context: the primitive every other
  /// `load` calls.
  ///
  /// The loader runs now, once, with this container as its `features`, so it sees the test's
  /// patches and scope contexts. Nothing is cached or registered; a cacheable's `teardown:` is kept,
  /// and runs when this branch closes (``/Arbor/Features/close(file:line:isolation:)``, listed in
  /// ``tornDown``). It works on any features: a ``TestFeatures(file:line:)`` container, a copy of a
  /// real tree, or a tree itself.
  ///
  /// ```swift
  /// let account: Account = try features.load(Account.live(), context: 7)
  /// ```
  ///
  /// - Parameters:
  ///   - loader: The implementation under test.
  ///   - context: The context the loader receives.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The instance the loader made.
  /// - Throws: Whatever the loader throws, as it threw it, so a test can match the loader's own
  ///   errors; `TestFeaturesMisuse` when `loader` loads another feature than `F`, or is `async`
  ///   (`await` the `load` of those).
  public func load<F: Feature>(
    _ loader: FeatureLoader, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F {
    let location = SourceLocation(fileID: file, line: line)
    TestReporter.install(at: location)
    guard let load = loader.registration.payload as? Loader<F> else {
      if loader.registration.payload is AsyncLoader<F> {
        throw TestFeaturesMisuse.asyncLoaderLoadedSynchronously(loader, at: location)
      }
      throw TestFeaturesMisuse.loaderOfAnotherFeature(loader, requested: F.self, at: location)
    }
    if loader.registration.runsOnMainActor, !MainQueue.isCurrent() {
      throw TestFeaturesMisuse.mainActorLoaderLoadedOffMainActor(loader, at: location)
    }
    // Fails on released or closed features, as requests do; a close waits for it.
    return try loadOutsideTable(F.self, tornDownBy: loader.registration, at: location) { try load(context, self) }
  }

  /// Runs a loader under test, synchronous or `async`, against these features, with a context.
  ///
  /// The `await`ed form of ``load(_:context:file:line:)-994eq``: in an `async` test, every `load` of a
  /// loader is this one.
  ///
  /// ```swift
  /// let database: Database = try await features.load(Database.connected(), context: .primary)
  /// ```
  ///
  /// - Parameters:
  ///   - loader: The implementation under test.
  ///   - context: The context the loader receives.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The instance the loader made.
  /// - Throws: Whatever the loader throws, as it threw it; `TestFeaturesMisuse` when `loader`
  ///   loads another feature than `F`.
  public func load<F: Feature>(
    _ loader: FeatureLoader, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) async throws -> F {
    let location = SourceLocation(fileID: file, line: line)
    TestReporter.install(at: location)
    return try await loadOutsideTable(F.self, tornDownBy: loader.registration, at: location) {
      switch loader.registration.payload {
      case let load as Loader<F> where loader.registration.runsOnMainActor && !MainQueue.isCurrent():
        return try await MainActor.run { try load(context, self) }
      case let load as Loader<F>: return try load(context, self)
      case let load as AsyncLoader<F>: return try await load.load(context, self)
      default: throw TestFeaturesMisuse.loaderOfAnotherFeature(loader, requested: F.self, at: location)
      }
    }
  }

  /// Runs a loader under test, synchronous or `async`, of a feature that takes no context.
  ///
  /// ```swift
  /// let config: RemoteConfig = try await features.load(RemoteConfig.fetched())
  /// ```
  ///
  /// - Parameters:
  ///   - loader: The implementation under test.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The instance the loader made.
  /// - Throws: See the `async` `load(_:context:file:line:)`.
  public func load<F: Feature>(
    _ loader: FeatureLoader, file: StaticString = #fileID, line: UInt = #line
  ) async throws -> F where F.Context == Void {
    try await load(loader, context: (), file: file, line: line)
  }

  /// Runs a loader under test, synchronous or `async`, of a cacheable feature that takes no context.
  ///
  /// ```swift
  /// let database: Database = try await features.load(Database.connected())
  /// ```
  ///
  /// - Parameters:
  ///   - loader: The implementation under test.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The instance the loader made.
  /// - Throws: See the `async` `load(_:context:file:line:)`.
  public func load<F: CacheableFeature>(
    _ loader: FeatureLoader, file: StaticString = #fileID, line: UInt = #line
  ) async throws -> F where F.Context == NoContext {
    try await load(loader, context: NoContext(), file: file, line: line)
  }

  /// Runs a loader under test of a feature that takes no context: a disposable.
  ///
  /// ```swift
  /// let printer: Printer = try features.load(Printer.console())
  /// ```
  ///
  /// - Parameters:
  ///   - loader: The implementation under test.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The instance the loader made.
  /// - Throws: See ``load(_:context:file:line:)-994eq``.
  public func load<F: Feature>(
    _ loader: FeatureLoader, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F where F.Context == Void {
    try load(loader, context: (), file: file, line: line)
  }

  /// Runs a loader under test of a cacheable feature that takes no context.
  ///
  /// ```swift
  /// let greeter: Greeter = try features.load(Greeter.live())
  /// ```
  ///
  /// - Parameters:
  ///   - loader: The implementation under test.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The instance the loader made.
  /// - Throws: See ``load(_:context:file:line:)-994eq``.
  public func load<F: CacheableFeature>(
    _ loader: FeatureLoader, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F where F.Context == NoContext {
    try load(loader, context: NoContext(), file: file, line: line)
  }

  /// Runs an implementation type under test against these features, with a context.
  ///
  /// ```swift
  /// let greeter = try features.load(LiveGreeter.self, context: NoContext())
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type under test.
  ///   - context: The context its initializer receives.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The feature's interface, backed by a new instance of `implementation`.
  /// - Throws: Whatever the implementation's initializer throws, as it threw it.
  public func load<I: FeatureImplementation>(
    _ implementation: I.Type, context: I.Implemented.Context, file: StaticString = #fileID, line: UInt = #line
  ) throws -> I.Implemented {
    let location = SourceLocation(fileID: file, line: line)
    TestReporter.install(at: location)
    return try loadOutsideTable(I.Implemented.self, tornDownBy: I.testTeardown(at: location), at: location) {
      try I(context: context, features: self).instance
    }
  }

  /// Runs an implementation type under test, of a feature that takes no context: a disposable.
  ///
  /// ```swift
  /// let printer = try features.load(ConsolePrinter.self)
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type under test.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The feature's interface, backed by a new instance of `implementation`.
  /// - Throws: See ``load(_:context:file:line:)-(I.Type,I.Implemented.Context,_,_)``.
  public func load<I: FeatureImplementation>(
    _ implementation: I.Type, file: StaticString = #fileID, line: UInt = #line
  ) throws -> I.Implemented where I.Implemented.Context == Void {
    try load(implementation, context: (), file: file, line: line)
  }

  /// Runs an implementation type under test, of a cacheable feature that takes no context.
  ///
  /// ```swift
  /// let greeter = try features.load(LiveGreeter.self)
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type under test.
  ///   - file: Where it is loaded; captured for you.
  ///   - line: Where it is loaded; captured for you.
  /// - Returns: The feature's interface, backed by a new instance of `implementation`.
  /// - Throws: See ``load(_:context:file:line:)-(I.Type,I.Implemented.Context,_,_)``.
  public func load<I: FeatureImplementation>(
    _ implementation: I.Type, file: StaticString = #fileID, line: UInt = #line
  ) throws -> I.Implemented where I.Implemented: CacheableFeature, I.Implemented.Context == NoContext {
    try load(implementation, context: NoContext(), file: file, line: line)
  }
}
