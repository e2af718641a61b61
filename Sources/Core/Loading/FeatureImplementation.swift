/// A type that implements a feature, for when a type reads better than a loader closure.
///
/// Its lifetime is the implemented feature's: a ``CacheableFeature`` is cached, a
/// ``DisposableFeature`` made for every request. Register it with
/// ``FeaturesRegistry/use(_:file:line:)-2ys5h``.
///
/// A conforming type has three members:
/// - ``Implemented``, the feature it implements. Swift infers it from the type of ``instance``; a
///   type whose `instance` is missing or mistyped is told "protocol requires nested type
///   'Implemented'", which is fixed by writing `instance`, not the typealias.
/// - ``init(context:features:)``, which loads it: it resolves what it needs from `features` and
///   throws what it cannot. `context` is the feature's `Context`: ``NoContext`` for a cacheable
///   without one, `Void` (write `context: Void`) for a disposable without one.
/// - ``instance``, the feature's interface, backed by this type.
///
/// ```swift
/// struct LiveGreeter: FeatureImplementation {
///   let printer: Printer
///   let session: Session
///
///   init(context: NoContext, features: Features) throws {
///     printer = try features.instance()
///     session = try features.context(for: SessionScope.self)
///   }
///
///   var instance: Greeter {
///     Greeter(greet: { [printer, session] in printer.print("Hello \(session.user)") })
///   }
/// }
/// ```
public protocol FeatureImplementation: Sendable {
  /// The feature this type implements.
  associatedtype Implemented: Feature

  /// Loads the implementation.
  ///
  /// - Parameters:
  ///   - context: The request's context (`Void` or ``NoContext`` when the feature takes none).
  ///   - features: The features it may use; they do not keep their branch alive.
  /// - Throws: Any error; it becomes the cause of a ``FeatureLoadingFailed``.
  init(context: Implemented.Context, features: Features) throws

  /// The feature's interface, backed by this implementation.
  var instance: Implemented { get }

  /// What releases a cached instance when its branch closes (see ``Features/close(file:line:isolation:)``),
  /// as the `teardown:` of a cacheable loader does; `nil`, the default, for none.
  ///
  /// ```swift
  /// static var teardown: (@Sendable (Database) async throws -> Void)? {
  ///   { database in await database.close() }
  /// }
  /// ```
  static var teardown: (@Sendable (Implemented) async throws -> Void)? { get }

  /// How long a cached instance serves before the first request that finds it older renews it,
  /// as the `timeToLive:` of a cacheable loader does; `nil`, the default, for as long as its
  /// branch lives.
  ///
  /// ```swift
  /// static var timeToLive: Duration? { .seconds(3600) }
  /// ```
  static var timeToLive: Duration? { get }
}

extension FeatureImplementation {
  /// No teardown: what an implementation type has unless it declares one.
  public static var teardown: (@Sendable (Implemented) async throws -> Void)? { nil }

  /// No time-to-live: what an implementation type has unless it declares one.
  public static var timeToLive: Duration? { nil }
}

extension FeatureLoader {
  /// A loader for an implementation type of a disposable feature.
  ///
  /// ```swift
  /// registry.use(.implementation(ConsolePrinter.self))
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type.
  ///   - file: Where it is registered; captured for you.
  ///   - line: Where it is registered; captured for you.
  /// - Returns: A disposable loader.
  public static func implementation<I: FeatureImplementation>(
    _ implementation: I.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> FeatureLoader where I.Implemented: DisposableFeature {
    FeatureLoader(
      .disposable, of: I.Implemented.self, implementation: .type(I.self),
      location: SourceLocation(fileID: file, line: line),
      load: { context, features in try I(context: context, features: features).instance }
    )
  }

  /// A loader for an implementation type of a cacheable feature, with its type's
  /// ``FeatureImplementation/teardown`` and ``FeatureImplementation/timeToLive``.
  ///
  /// ```swift
  /// registry.use(.implementation(LiveGreeter.self))
  /// ```
  ///
  /// - Parameters:
  ///   - implementation: The implementation type.
  ///   - file: Where it is registered; captured for you.
  ///   - line: Where it is registered; captured for you.
  /// - Returns: A cacheable loader.
  public static func implementation<I: FeatureImplementation>(
    _ implementation: I.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> FeatureLoader where I.Implemented: CacheableFeature {
    FeatureLoader(
      .cacheable, of: I.Implemented.self, implementation: .type(I.self),
      location: SourceLocation(fileID: file, line: line),
      load: { context, features in try I(context: context, features: features).instance }, teardown: I.teardown,
      timeToLive: I.timeToLive
    )
  }
}

extension FeatureImplementation {
  /// What a test container tears down an instance of this type with, once it made one
  /// (`features.load(Self.self)`): `nil` unless the feature is cacheable and the type has a
  /// ``teardown``.
  package static func testTeardown(at location: SourceLocation) -> Registration? {
    guard Implemented.self is any CacheableFeature.Type, teardown != nil else { return nil }
    let loader = FeatureLoader(
      .cacheable, of: Implemented.self, implementation: .type(Self.self), location: location,
      load: { context, features in try Self(context: context, features: features).instance }, teardown: teardown)
    return loader.registration
  }
}
