import Arbor
import Vapor

extension Request {
  /// The request's branch, made by ``FeaturesMiddleware``: handlers resolve from it in one call.
  ///
  /// ```swift
  /// app.get("todos") { req async throws -> [Todo] in
  ///   try await req.features.instance(of: Todos.self).list()
  /// }
  /// ```
  ///
  /// - Throws: ``RequestFeaturesUnavailable`` when no ``FeaturesMiddleware`` ran for this route.
  public var features: Features {
    get throws {
      guard let branch = storage[RequestFeaturesKey.self] else {
        throw RequestFeaturesUnavailable(method: method.rawValue, path: url.path, route: route?.description)
      }
      return branch
    }
  }
}
