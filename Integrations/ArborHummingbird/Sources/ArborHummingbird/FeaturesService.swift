import Arbor
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that owns a features tree for a server's whole life: it
/// validates the tree when the service group starts, refusing to start with the whole report when
/// the tree has problems, and closes the root on graceful shutdown, which tears down what the tree
/// holds (connections, files), newest first.
///
/// Add it to the application with ``Hummingbird/Application/addFeatures(_:)``, which also keeps the
/// server from accepting connections until validation has passed. A service group shuts its
/// services down in the reverse order of their start, and the application's services start before
/// its server: the server stops first, then the root closes.
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

  /// Validates the tree, waits for the group's graceful shutdown (or cancellation), then closes the
  /// root.
  ///
  /// - Throws: `FeaturesValidationFailed` listing every problem, when validation finds any; the
  ///   service group then stops, and its `run()` throws it. `TeardownFailed` when a teardown threw
  ///   while the root closed (every other teardown ran).
  public func run() async throws {
    try await validate()
    // Cancellation ends the wait as graceful shutdown does: the tree is closed either way.
    try? await gracefulShutdown()
    do {
      try await root.close()
      logger.info("features tree closed")
    } catch let failure as any DiagnosticError {
      logger.error(
        "\(failure.diagnostic.summary())",
        metadata: [DiagnosticErrorMapping.diagnosticMetadataKey: .string(failure.diagnostic.json(pretty: false))])
      throw failure
    }
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
