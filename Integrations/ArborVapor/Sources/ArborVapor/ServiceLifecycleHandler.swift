import ServiceLifecycle
import Synchronization
import Vapor

/// Runs a swift-service-lifecycle `Service` from the application's boot to its shutdown, as a
/// Vapor lifecycle handler: its task starts once the application has booted and is cancelled, and
/// waited for, when the application shuts down.
///
/// ```swift
/// app.useFeatures(FeaturesService(root: root, logger: app.logger))
/// app.lifecycle.use(ServiceLifecycleHandler(IdleBranchesEviction(sessions, every: .seconds(60))))
/// ```
public final class ServiceLifecycleHandler<S: Service>: LifecycleHandler {
  /// The service it runs.
  public let service: S
  private let task = Mutex<Task<Void, Never>?>(nil)

  /// A handler that runs `service` while the application runs.
  ///
  /// - Parameter service: The service; an error its `run()` throws is logged to the application's
  ///   logger.
  public init(_ service: S) {
    self.service = service
  }

  /// Starts the service's task.
  ///
  /// - Parameter application: The application that booted.
  public func didBootAsync(_ application: Application) async throws {
    let logger = application.logger
    let service = service
    let started = Task {
      do {
        try await service.run()
      } catch is CancellationError {
        // Shut down.
      } catch {
        logger.error("\(service) failed: \(error)")
      }
    }
    task.withLock { $0 = started }
  }

  /// Cancels the service's task and waits for it to end.
  ///
  /// - Parameter application: The application shutting down.
  public func shutdownAsync(_ application: Application) async {
    guard let running = task.withLock({ $0.take() }) else { return }
    running.cancel()
    await running.value
  }
}
