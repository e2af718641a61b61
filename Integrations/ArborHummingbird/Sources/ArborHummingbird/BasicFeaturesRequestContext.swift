import Hummingbird

/// A ready request context that carries the request's `Features`, for apps that need nothing else
/// in their context.
///
/// ```swift
/// let router = Router(context: BasicFeaturesRequestContext.self)
/// router.add(middleware: FeaturesMiddleware(root: root, scope: RequestScope.self) { request, context in
///   RequestInfo(id: context.id, path: request.uri.path)
/// })
/// ```
public struct BasicFeaturesRequestContext: FeaturesRequestContext {
  /// Hummingbird's own storage: the logger, the endpoint path, the route's parameters.
  public var coreContext: CoreRequestContextStorage
  /// The request's branch, once ``FeaturesMiddleware`` has made it.
  public var requestFeatures: RequestFeatures

  /// A context for a new request, with an empty features slot.
  ///
  /// - Parameter source: What Hummingbird creates the context from.
  public init(source: Source) {
    self.coreContext = .init(source: source)
    self.requestFeatures = RequestFeatures()
  }
}
