import ArborServiceLifecycle
import Vapor

/// Validates and starts a ``FeaturesService``'s tree when the application boots and closes its root when the
/// application shuts down, after its server has stopped.
struct FeaturesLifecycle: LifecycleHandler {
  let service: FeaturesService

  /// Refuses a synchronous boot, which cannot wait for validation: a tree that was never checked
  /// must not serve.
  func willBoot(_ application: Application) throws {
    throw FeaturesBootNotAsync(root: service.root)
  }

  func willBootAsync(_ application: Application) async throws {
    try await service.validate()
    try await service.start()
  }

  func shutdownAsync(_ application: Application) async {
    // A teardown that fails is logged by the service; shutdown goes on.
    try? await service.close()
  }
}
