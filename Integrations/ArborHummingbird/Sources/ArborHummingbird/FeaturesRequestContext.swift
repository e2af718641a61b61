import Arbor
import Hummingbird

/// A Hummingbird request context that carries the request's `Features`: the branch that
/// ``FeaturesMiddleware`` makes for each request.
///
/// Conform your context by adding a ``RequestFeatures`` slot, or use
/// ``BasicFeaturesRequestContext``. Handlers resolve what they need with one call.
///
/// ```swift
/// struct AppContext: FeaturesRequestContext {
///   var coreContext: CoreRequestContextStorage
///   var requestFeatures = RequestFeatures()
///   init(source: Source) { coreContext = .init(source: source) }
/// }
///
/// router.get("todos") { request, context in
///   let todos: Todos = try await context.instance()
///   return try await todos.list()
/// }
/// ```
public protocol FeaturesRequestContext: RequestContext {
  /// The slot ``FeaturesMiddleware`` fills with the request's branch; start it empty.
  var requestFeatures: RequestFeatures { get set }
}

extension FeaturesRequestContext {
  /// The request's branch, made by ``FeaturesMiddleware``.
  ///
  /// ```swift
  /// let request = try context.features
  /// let id = try request.context(for: RequestScope.self).id
  /// ```
  ///
  /// - Throws: ``RequestFeaturesUnavailable`` when no ``FeaturesMiddleware`` ran for this route.
  public var features: Features {
    get throws {
      guard let branch = requestFeatures.branch else {
        throw RequestFeaturesUnavailable(context: Self.self, endpoint: endpointPath, at: nil)
      }
      return branch
    }
  }

  /// Resolves a feature from the request's branch.
  ///
  /// ```swift
  /// let logger: RequestLogger = try await context.instance(context: "billing")
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - featureContext: The context passed to the loader, and for a cacheable, the key of its instance.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: The instance.
  /// - Throws: ``RequestFeaturesUnavailable`` when no ``FeaturesMiddleware`` ran for this route, and
  ///   the errors of `Features.instance(of:context:file:line:isolation:)`.
  @inlinable
  public func instance<F: Feature>(
    of feature: F.Type = F.self, context featureContext: F.Context, file: StaticString = #fileID,
    line: UInt = #line, isolation: isolated (any Actor)? = #isolation
  ) async throws -> F {
    try await branch(file: file, line: line).instance(
      of: feature, context: featureContext, file: file, line: line, isolation: isolation)
  }

  /// Resolves a feature that takes no context (a static feature or a disposable) from the
  /// request's branch.
  ///
  /// ```swift
  /// let clock: Clock = try await context.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:isolation:)``.
  @inlinable
  public func instance<F: Feature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F where F.Context == Void {
    try await branch(file: file, line: line).instance(of: feature, file: file, line: line, isolation: isolation)
  }

  /// Resolves a cacheable feature that takes no context from the request's branch.
  ///
  /// ```swift
  /// let todos: Todos = try await context.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  ///   - isolation: The caller's actor, captured for you.
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:isolation:)``.
  @inlinable
  public func instance<F: CacheableFeature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> F where F.Context == NoContext {
    try await branch(file: file, line: line).instance(of: feature, file: file, line: line, isolation: isolation)
  }

  /// The request's branch, or the error that names the request site.
  @usableFromInline
  func branch(file: StaticString, line: UInt) throws -> Features {
    guard let branch = requestFeatures.branch else {
      throw RequestFeaturesUnavailable(
        context: Self.self, endpoint: endpointPath, at: SourceLocation(fileID: file, line: line))
    }
    return branch
  }
}
