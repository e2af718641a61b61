import ArborHummingbird
import Hummingbird

/// The server's request context: Hummingbird's, with the slot where each request's features go.
public struct TodoRequestContext: FeaturesRequestContext {
  /// Hummingbird's storage: the logger, the endpoint path, the route's parameters.
  public var coreContext: CoreRequestContextStorage
  /// The request's branch, put there by `FeaturesMiddleware`.
  public var requestFeatures = RequestFeatures()

  /// A context for a new request.
  public init(source: Source) {
    self.coreContext = .init(source: source)
  }
}
