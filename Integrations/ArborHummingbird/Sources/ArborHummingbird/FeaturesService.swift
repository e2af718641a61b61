import Arbor
import Logging
import ServiceLifecycle
import Synchronization

/// A swift-service-lifecycle `Service` that owns a features tree for a server's whole life: it
/// validates the tree when the service group starts, and refuses to start with the whole report
/// when the tree has problems.
///
/// Add it to the application with ``Hummingbird/Application/addFeatures(_:)``, which also keeps the
/// server from accepting connections until validation has passed.
///
/// ```swift
/// let features = FeaturesService(root: root, logger: logger) { contexts in
///   contexts.use(Session(user: "validation"), for: SessionScope.self)
///   contexts.use(RequestInfo(id: "validation", path: "/"), for: RequestScope.self)
/// }
/// var app = Application(router: router, logger: logger)
/// app.addFeatures(features)
/// try await app.runService()
/// ```
public struct FeaturesService: Service {
  /// The tree the service validates.
  public let root: Features
  /// Gives validation a context for each scope whose `Context` is not `Void`.
  let contexts: @Sendable (inout ValidationContexts) -> Void
  /// Where the service says what it found.
  let logger: Logger
  /// The outcome of start-up validation, for those waiting on it.
  let outcome = ValidationOutcome()

  /// A service for the tree of `root`.
  ///
  /// - Parameters:
  ///   - root: The tree's root.
  ///   - logger: Where validation's report and notes are logged.
  ///   - contexts: Gives validation a context for each scope whose `Context` is not `Void`, as
  ///     `Features.validate(_:file:line:)` takes them.
  public init(
    root: Features, logger: Logger, contexts: @escaping @Sendable (inout ValidationContexts) -> Void = { _ in }
  ) {
    self.root = root
    self.logger = logger
    self.contexts = contexts
  }

  /// Validates the tree, then waits for the group's graceful shutdown.
  ///
  /// - Throws: `FeaturesValidationFailed` listing every problem, when validation finds any; the
  ///   service group then stops, and its `run()` throws it.
  public func run() async throws {
    try await validate()
    // Cancellation ends the wait as graceful shutdown does.
    try? await gracefulShutdown()
  }

  /// Waits until the start-up validation of ``run()`` has passed.
  ///
  /// ``Hummingbird/Application/addFeatures(_:)`` runs it before the server starts, so the server
  /// never accepts a request for a tree with problems.
  ///
  /// - Throws: The validation failure, when there is one.
  public func validated() async throws {
    try await outcome.wait()
  }

  /// Validates the tree, logs what it found, and publishes the outcome.
  private func validate() async throws {
    let validation = await root.validate(contexts)
    for note in validation.notes {
      logger.notice("features validation checked a loader in part: \(note)")
    }
    do {
      try validation.check()
    } catch let failure as FeaturesValidationFailed {
      logger.critical(
        "\(failure.diagnostic.summary())",
        metadata: [DiagnosticErrorMapping.diagnosticMetadataKey: .string(failure.diagnostic.json(pretty: false))])
      outcome.publish(.failure(failure))
      throw failure
    }
    logger.info("features tree validated: \(validation.graph.nodes.count) registrations")
    outcome.publish(.success(()))
  }
}
