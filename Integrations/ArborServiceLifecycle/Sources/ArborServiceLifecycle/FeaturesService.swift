@_spi(Integrations) import Arbor
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that owns a features tree for a server's whole life: it
/// validates the tree when the service group starts, refusing to start with the whole report when
/// the tree has problems, then starts the root (its eager features, in dependency order, then its
/// before-serving work, such as migrations), and closes the root on graceful shutdown, which tears
/// down what the tree holds (connections, files), each instance before those it was built from.
///
/// Run it in the server's `ServiceGroup` before the server, and start the server only once
/// ``ready()`` returns, so the server never accepts a request for a tree with problems: a
/// service group shuts its services down in the reverse order of their start, so the server stops
/// first, then the root closes. ArborHummingbird's `app.addFeatures(_:)` and ArborVapor's
/// `app.useFeatures(_:)` do both for you; a lifecycle that is not a service group calls ``validate()``
/// and ``start()`` before its server starts and ``close()`` after it stops.
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
  /// How long the root's start may take; no limit when `nil`.
  let startTimeout: Duration?
  /// The outcome of start-up validation and start, for those waiting on it.
  let outcome = ValidationOutcome()

  /// A service for the tree of `root`.
  ///
  /// - Parameters:
  ///   - root: The tree's root.
  ///   - logger: Where validation's report and notes, the start-up and the shutdown are logged.
  ///   - startTimeout: How long the root's start may take, as `Features.start(timeout:)` takes it;
  ///     no limit when `nil`.
  ///   - contexts: Gives validation a context for each scope whose `Context` is not `Void`, as
  ///     `Features.validate(_:file:line:)` takes them.
  public init(
    root: Features, logger: Logger, startTimeout: Duration? = nil,
    contexts: @escaping @Sendable (inout ValidationContexts) -> Void = { _ in }
  ) {
    self.root = root
    self.logger = logger
    self.startTimeout = startTimeout
    self.contexts = contexts
  }

  /// Validates the tree, starts the root, waits for the group's graceful shutdown (or
  /// cancellation), then closes the root.
  ///
  /// - Throws: `FeaturesValidationFailed` listing every problem, when validation finds any, or
  ///   `FeaturesStartFailed` listing every failure of the start; the service group then stops, and
  ///   its `run()` throws it. `TeardownFailed` when a teardown threw while the root closed (every
  ///   other teardown ran).
  public func run() async throws {
    try await validate()
    try await start()
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

  /// Waits until ``run()`` validated and started the tree.
  ///
  /// Start the server once it returns, so the server never accepts a request for a tree with
  /// problems, nor before its eager features loaded and its migrations ran.
  ///
  /// - Throws: The validation or start failure, when there is one.
  public func ready() async throws {
    try await outcome.wait()
  }

  /// Starts the root: its eager features, each after what it requests, then its before-serving
  /// work; logs each step with its duration, and publishes the outcome to ``ready()``.
  ///
  /// ``run()`` calls it after ``validate()``; a server whose lifecycle is not a service group calls
  /// it before its server starts.
  ///
  /// - Throws: `FeaturesStartFailed` listing every failure with its path; it is logged critical
  ///   with its diagnostic (by ``ServerMain``, once, when it runs the server), and the root is closed
  ///   (what had started is torn down).
  public func start() async throws {
    do {
      let started = try await root.start(timeout: startTimeout)
      for step in started.steps {
        logger.info("features tree started \(step.name) in \(Self.milliseconds(step.duration))")
      }
      logger.info("features tree started in \(Self.milliseconds(started.duration))")
    } catch let failure as any DiagnosticError {
      logStartUpFailure(failure)
      outcome.publish(.failure(failure))
      throw failure
    }
    outcome.publish(.success(()))
  }

  /// `4.05 ms`: how the log shows a step's duration.
  static func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let hundredths = (Double(seconds) * 100_000 + Double(attoseconds) / 1e13).rounded()
    return "\(hundredths / 100) ms"
  }

  /// The service as a service group names it in its log: its type and where its root is.
  ///
  /// ```swift
  /// print(FeaturesService(root: root, logger: logger))  // FeaturesService(root: Root)
  /// ```
  public var description: String { "FeaturesService(root: \(root))" }

  /// Logs a failed validation or start critical, unless ``ServerMain`` runs the server: it logs
  /// the error that stops the server, this one, with its whole tree, and a failure is logged once.
  private func logStartUpFailure(_ failure: any DiagnosticError) {
    guard !ServerMain.logsStartUpFailures else { return }
    logger.log(level: .critical, diagnostic: failure.diagnostic)
  }

  /// Validates the tree, logs what it found, and publishes a failure to ``ready()``.
  ///
  /// ``run()`` calls it first; a server whose lifecycle is not a service group calls it before its
  /// server starts.
  ///
  /// - Throws: `FeaturesValidationFailed` listing every problem, when validation finds any; else
  ///   ``SessionKeyMissing`` when a sessions middleware set up against this tree can be given no key
  ///   where its request scope cannot be branched. It is logged critical with its diagnostic (by
  ///   ``ServerMain``, once, when it runs the server).
  public func validate() async throws {
    let validation = await root.validate(contexts)
    for note in validation.notes {
      logger.notice("features validation: \(note)")
    }
    do {
      try validation.check()
      // What the server's integrations found as they were set up against this tree.
      if let found = StartUpFindings.shared.errors(for: root.tree).first { throw found }
    } catch let failure as any DiagnosticError {
      logStartUpFailure(failure)
      outcome.publish(.failure(failure))
      throw failure
    }
    logger.info("features tree validated: \(validation.graph.nodes.count) registrations")
  }
}
