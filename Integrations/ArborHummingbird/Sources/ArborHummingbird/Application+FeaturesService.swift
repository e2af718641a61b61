import Hummingbird
import ServiceLifecycle

extension Application {
  /// Adds a ``FeaturesService`` to the application's services, and holds the server back until the
  /// service's start-up validation has passed.
  ///
  /// The service is added before the server, so on graceful shutdown the server stops first and the
  /// service after it.
  ///
  /// ```swift
  /// var app = Application(router: router, logger: logger)
  /// app.addFeatures(FeaturesService(root: root, logger: logger))
  /// try await app.runService()
  /// ```
  ///
  /// - Parameter service: The service that owns the application's features tree.
  public mutating func addFeatures(_ service: FeaturesService) {
    addServices(service)
    beforeServerStarts { try await service.ready() }
  }
}
