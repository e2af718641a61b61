/// A property that resolves a feature lazily, on first read, from the features it belongs to.
///
/// The features are those given to ``init(in:file:line:)``, or else the task's current features
/// (``Features/withCurrent(_:)``) when the property is initialised, or else when it is
/// first read. The instance is resolved once per property and kept.
///
/// A failure is reported with Arbor's diagnostic, whose "requested at" is the property's
/// declaration (a test failure in tests, standard error otherwise), and the property reads as the
/// feature's ``Feature/placeholder``, whose members then report themselves when called. Use the
/// projected value to handle failures instead: `try $greeter.instance()`.
///
/// ```swift
/// struct GreetingHandler {
///   @Resolved var greeter: Greeter  // from Features.current() where the handler is made
///
///   func handle() throws { try greeter.greet() }
/// }
///
/// final class SessionController {
///   @Resolved var greeter: Greeter
///   init(features: Features) {
///     _greeter = Resolved(in: features)  // from the features the controller holds
///   }
/// }
/// ```
@propertyWrapper
public struct Resolved<F: Feature>: Sendable {
  private let storage: Storage

  private final class Storage: Sendable {
    let features: Features?
    /// `nil` when the declaration gave none: only features without a context resolve then.
    let context: F.Context?
    let location: SourceLocation
    let instance = Lock<F?>.make(nil)

    init(features: Features?, context: F.Context?, location: SourceLocation) {
      self.features = features
      self.context = context
      self.location = location
    }
  }

  /// A property resolved from `features`, with a context.
  ///
  /// ```swift
  /// _logger = Resolved(in: features, context: "billing")
  /// ```
  ///
  /// - Parameters:
  ///   - features: The features to resolve from; `nil` for the task's current features.
  ///   - context: The context of the request.
  ///   - file: The declaration's file; captured for you.
  ///   - line: The declaration's line; captured for you.
  public init(in features: Features? = nil, context: F.Context, file: StaticString = #fileID, line: UInt = #line) {
    self.init(features, context: context, at: SourceLocation(fileID: file, line: line))
  }

  /// A property resolved from `features`, or from the task's current features, for a feature
  /// without a context.
  ///
  /// ```swift
  /// @Resolved var greeter: Greeter
  /// ```
  ///
  /// - Parameters:
  ///   - features: The features to resolve from; `nil` for the task's current features.
  ///   - file: The declaration's file; captured for you.
  ///   - line: The declaration's line; captured for you.
  public init(in features: Features? = nil, file: StaticString = #fileID, line: UInt = #line) {
    // Unconstrained, so that `@Resolved var x: X` default-initialises; a feature that needs a
    // context fails at resolution with a diagnostic that says to pass one.
    let context = (() as? F.Context) ?? (NoContext() as? F.Context)
    self.init(features, context: context, at: SourceLocation(fileID: file, line: line))
  }

  private init(_ features: Features?, context: F.Context?, at location: SourceLocation) {
    storage = Storage(features: features ?? Features.currentInTask, context: context, location: location)
  }

  /// The resolved instance; on failure, reported and read as the placeholder.
  public var wrappedValue: F {
    do {
      return try instance()
    } catch {
      IssueReporting.report(Diagnostic(describing: error), severity: .failure)
      return F.placeholder
    }
  }

  /// The property wrapper itself, for ``instance()-9h57p``: `try $greeter.instance()`.
  public var projectedValue: Resolved<F> { self }

  /// Resolves the feature (once) and returns it, throwing Arbor's errors.
  ///
  /// ```swift
  /// let greeter = try $greeter.instance()
  /// ```
  ///
  /// - Returns: The instance.
  /// - Throws: ``CurrentFeaturesUndefined`` when there are no features to resolve from, and every
  ///   error of ``Features/instance(of:context:file:line:)``.
  public func instance() throws -> F {
    if let instance = storage.instance.withLock({ $0 }) { return instance }
    let (features, context) = try request()
    let location = storage.location
    return keep(try features.instance(of: F.self, context: context, file: location.fileID, line: location.line))
  }

  /// Resolves the feature (once), running an async loader if it has one.
  ///
  /// ```swift
  /// let database = try await $database.instance()
  /// ```
  ///
  /// - Returns: The instance.
  /// - Throws: See ``instance()-9h57p``, and `CancellationError` when the task is cancelled while
  ///   it waits.
  public func instance() async throws -> F {
    if let instance = storage.instance.withLock({ $0 }) { return instance }
    let (features, context) = try request()
    let location = storage.location
    return keep(try await features.instance(of: F.self, context: context, file: location.fileID, line: location.line))
  }

  /// The features and context to resolve from.
  private func request() throws -> (Features, F.Context) {
    let location = storage.location
    let features = try storage.features ?? Features.current(file: location.fileID, line: location.line)
    guard let context = storage.context else { throw ResolvedContextMissing(F.self, at: location) }
    return (features, context)
  }

  /// Keeps the first instance resolved: another thread may have resolved it meanwhile.
  private func keep(_ resolved: F) -> F {
    storage.instance.withLock { instance in
      if let instance { return instance }
      instance = resolved
      return resolved
    }
  }

}

/// A ``Resolved`` property of a feature that takes a context was declared without one.
///
/// ```
/// ResolvedContextMissing: Account needs a context to resolve
/// ├─ requested at: App/Handler.swift:4
/// └─ fix: declare it with a context: @Resolved(context: ...) var account: Account
/// ```
public struct ResolvedContextMissing: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ feature: any Feature.Type, at location: SourceLocation) {
    diagnostic = Diagnostic(
      kind: "ResolvedContextMissing", message: "\(feature) needs a context to resolve", location: location,
      feature: String(describing: feature),
      fix: "declare it with a context: @Resolved(context: ...) var property: \(feature)")
  }
}
