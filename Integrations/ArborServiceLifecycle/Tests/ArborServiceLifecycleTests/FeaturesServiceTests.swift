import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Logging
import ServiceLifecycle
import Testing

@Suite struct FeaturesServiceTests {
  /// Runs `service` alone in a service group until `body` returns, then shuts the group down.
  func run(
    _ service: FeaturesService, groupEntries: RecordingLogHandler.Entries = RecordingLogHandler.Entries(),
    _ body: () async throws -> Void
  ) async throws {
    let group = ServiceGroup(services: [service], logger: groupEntries.logger(label: "group"))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      try await service.ready()
      try await body()
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
    }
  }

  @Test func aSoundTreeIsValidatedThenClosedOnGracefulShutdown() async throws {
    let teardowns = Teardowns()
    let root = testTree(teardowns: teardowns)
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger(label: "features"), contexts: validationContexts)
    try await run(service) {
      let connection: Connection = try await root.instance()
      #expect(connection.number > 0)
      // Validation ran the connection's loader and its teardown; the root's own connection is open.
      #expect(teardowns.all.filter { $0 == "root" }.count == 1)
    }
    #expect(teardowns.all.filter { $0 == "root" }.count == 2)
    #expect(teardowns.all.last == "root")
    let messages = entries.all.map(\.message)
    #expect(messages.count == 3)
    #expect(messages.first?.hasPrefix("features tree validated: ") == true)
    #expect(messages.dropFirst().first?.hasPrefix("features tree started in ") == true)
    #expect(messages.last == "features tree closed")
    #expect(throws: FeaturesClosed.self) { try root.branch(SessionScope.self, context: Session(user: "late")) }
  }

  @Test func aWiringMistakeFailsTheGroupWithTheWholeReportLoggedOnce() async throws {
    let root = FeaturesRoot { registry in
      registry.use(Audit.live())
      registry.defineScope(SessionScope.self) { registry in registry.use(Audit.live()) }
    }
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger(label: "features")) { contexts in
      contexts.use(Session(user: "validation"), for: SessionScope.self)
    }
    let group = ServiceGroup(services: [service], logger: entries.logger(label: "group"))
    let failure = await #expect(throws: FeaturesValidationFailed.self) { try await group.run() }
    #expect(failure?.problems.count == 2)
    await #expect(throws: FeaturesValidationFailed.self) { try await service.ready() }
    let critical = entries.all.filter { $0.level == .critical }
    #expect(critical.count == 1)
    #expect(critical.first?.message.hasPrefix("FeaturesValidationFailed: 2 problems in the features tree") == true)
    #expect(critical.first?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesValidationFailed")
    #expect(critical.first?.metadata[DiagnosticLogMetadata.diagnosticKey] != nil)
  }

  @Test func theRootStartsItsEagerFeaturesAndMigrationsBeforeItIsReady() async throws {
    let teardowns = Teardowns()
    let root = FeaturesRoot { registry in
      registry.use(Counter.live())
      registry.use(Connection.live(teardowns: teardowns), eager: true)
      registry.beforeServing { _ in teardowns.append("migrated") }
    }
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger(label: "features"), startTimeout: .seconds(30))
    try await run(service) {
      // Ready: the eager connection loaded, the migration ran, and validation's teardown ran first.
      #expect(teardowns.all == ["root", "migrated"])
    }
    #expect(teardowns.all == ["root", "migrated", "root"])
    let messages = entries.all.map(\.message)
    #expect(messages.contains { $0.hasPrefix("features tree started Connection.live(teardowns:) in ") })
    #expect(messages.contains { $0.hasPrefix("features tree started before serving (") })
  }

  @Test func aFailedStartFailsTheGroupWithItsDiagnosticLoggedCritical() async throws {
    struct Offline: Error {}
    let root = FeaturesRoot { registry in
      // Validation runs the loader too: it passes there, and the database is unreachable at start.
      registry.use(
        .cacheable { (features: Features) async throws -> Connection in
          guard features.isValidating else { throw Offline() }
          return Connection(number: 0)
        }, eager: true)
    }
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger(label: "features"))
    let group = ServiceGroup(services: [service], logger: entries.logger(label: "group"))
    await #expect(throws: FeaturesStartFailed.self) { try await group.run() }
    await #expect(throws: FeaturesStartFailed.self) { try await service.ready() }
    let critical = entries.all.filter { $0.level == .critical }
    #expect(critical.count == 1)
    #expect(critical.first?.message.hasPrefix("FeaturesStartFailed: could not start Root: 1 of 1 step failed") == true)
    #expect(critical.first?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesStartFailed")
    // The failed start closed the root.
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Connection.self) }
  }

  @Test func itsDescriptionNamesTheRootAndNoInternals() {
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: testTree(), logger: entries.logger())
    #expect(service.description == "FeaturesService(root: Root)")
    #expect("\(service)" == "FeaturesService(root: Root)")
  }

  @Test func theServiceGroupLogsTheServiceByItsDescription() async throws {
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(
      root: testTree(), logger: entries.logger(label: "features"), contexts: validationContexts)
    try await run(service, groupEntries: entries) {}
    let named = entries.all.compactMap { $0.metadata["sl-service"].map { "\($0)" } }
    #expect(!named.isEmpty)
    #expect(named.allSatisfy { $0 == "FeaturesService(root: Root)" })
  }
}
