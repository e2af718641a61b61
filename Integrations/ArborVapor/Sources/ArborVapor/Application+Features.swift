import ArborServiceLifecycle
import Vapor

extension Application {
  /// Validates the tree of `service` when the application boots, refusing to boot with the whole
  /// report when it has problems, and closes its root when the application shuts down.
  ///
  /// Vapor boots its lifecycle handlers before its server starts and shuts them down in reverse
  /// order after it has stopped: call it first, so every handler added after it (such as a
  /// ``ServiceLifecycleHandler`` evicting idle sessions) stops before the root closes.
  ///
  /// ```swift
  /// let app = try await Application.make(.detect())
  /// app.useFeatures(FeaturesService(root: root, logger: app.logger))
  /// try await app.execute()
  /// try await app.asyncShutdown()
  /// ```
  ///
  /// A synchronous boot (`app.boot()`) cannot wait for validation and fails with
  /// ``FeaturesBootNotAsync``; in tests, `try await app.asyncBoot()` before `app.testing()`.
  ///
  /// - Parameter service: The service that owns the application's features tree.
  public func useFeatures(_ service: FeaturesService) {
    lifecycle.use(FeaturesLifecycle(service: service))
  }
}
