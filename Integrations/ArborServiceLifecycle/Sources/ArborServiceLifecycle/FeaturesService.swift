import Arbor
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that owns a features tree for a server's whole life: it
/// validates the tree when the service group starts, refusing to start with the whole report when
/// the tree has problems, and closes the root on graceful shutdown, which tears down what the tree
/// holds (connections, files), newest first.
///
/// Run it in the server's `ServiceGroup` before the server, and start the server only once
/// ``validated()`` returns, so the server never accepts a request for a tree with problems: a
/// service group shuts its services down in the reverse order of their start, so the server stops
/// first, then the root closes. ArborHummingbird's `app.addFeatures(_:)` and ArborVapor's
/// `app.useFeatures(_:)` do both for you; a lifecycle that is not a service group calls ``validate()``
/// before its server starts and ``close()`` after it stops.
///
/// ```swift
/// let features = FeaturesService(root: root, logger: logger) { contexts in
///   contexts.use(Session(user: "validation"), for: SessionScope.self)
///   contexts.use(RequestInfo(id: "validation", path: "/"), for: RequestScope.self)
/// }
/// let group = ServiceGroup(services: [features, server], logger: logger)
/// try await group.run()
/// ```
public struct FeaturesService: Service, CustomStringConvertible {
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
    try await close()
  }

  /// Closes the root, which tears down what the tree holds, newest first, and logs that it did.
  ///
  /// ``run()`` calls it on graceful shutdown; a server whose lifecycle is not a service group calls
  /// it when it shuts down, after its server has stopped.
  ///
  /// - Throws: `TeardownFailed` when a teardown threw (every other teardown ran); it is logged at
  ///   error level with its diagnostic.
  public func close() async throws {
    do {
      try await root.close()
      logger.info("features tree closed")
    } catch let failure as any DiagnosticError {
      logger.log(level: .error, diagnostic: failure.diagnostic)
      throw failure
    }
  }

  /// Waits until the start-up validation of ``run()`` has passed.
  ///
  /// Start the server once it returns, so the server never accepts a request for a tree with
  /// problems.
  ///
  /// - Throws: The validation failure, when there is one.
  public func validated() async throws {
    try await outcome.wait()
  }

  /// The service as a service group names it in its log: its type and where its root is.
  ///
  /// ```swift
  /// print(FeaturesService(root: root, logger: logger))  // FeaturesService(root: Root)
  /// ```
  public var description: String { "FeaturesService(root: \(root))" }

  /// Validates the tree, logs what it found, and publishes the outcome to ``validated()``.
  ///
  /// ``run()`` calls it first; a server whose lifecycle is not a service group calls it before its
  /// server starts.
  ///
  /// - Throws: `FeaturesValidationFailed` listing every problem, when validation finds any; it is
  ///   logged critical with its diagnostic.
  public func validate() async throws {
    let validation = await root.validate(contexts)
    for note in validation.notes {
      logger.notice("features validation checked a loader in part: \(note)")
    }
    do {
      try validation.check()
    } catch let failure as FeaturesValidationFailed {
      logger.log(level: .critical, diagnostic: failure.diagnostic)
      outcome.publish(.failure(failure))
      throw failure
    }
    logger.info("features tree validated: \(validation.graph.nodes.count) registrations")
    outcome.publish(.success(()))
  }
}
