import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import ArborVapor
import Testing
import VaporTesting

@Suite struct FeaturesLifecycleTests {
  /// A request feature whose loader requests something nobody registered: a wiring mistake that
  /// would otherwise surface on the first request.
  struct Audit: CacheableFeature {
    var value: Int
    static var placeholder: Audit { Audit(value: 0) }

    static func live() -> FeatureLoader {
      .cacheable { features in Audit(value: try features.instance(of: Unregistered.self).value) }
    }
  }

  @Test func aWiringMistakeIsRefusedAtBootWithTheWholeReport() async throws {
    let root = FeaturesRoot { registry in
      registry.use(Counter.live())
      registry.defineScope(RequestScope.self) { registry in registry.use(Audit.live()) }
      registry.defineScope(SessionScope.self) { registry in registry.use(Audit.live()) }
    }
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      app.logger = entries.logger()
      app.useFeatures(
        FeaturesService(root: root, logger: entries.logger(label: "features"), contexts: validationContexts))
      let failure = await #expect(throws: FeaturesValidationFailed.self) { try await app.asyncBoot() }
      #expect(failure?.problems.count == 2)
      #expect(failure?.problems.allSatisfy { $0 is FeatureUndefined } == true)
    }
    let critical = entries.all.filter { $0.level == .critical }
    #expect(critical.count == 1)
    #expect(critical.first?.message.hasPrefix("FeaturesValidationFailed: 2 problems in the features tree") == true)
    #expect(critical.first?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesValidationFailed")
  }

  @Test func aFailedBootUnderServerMainIsLoggedOnce() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(Audit.live()) }
    }
    let appEntries = RecordingLogHandler.Entries()
    let serviceEntries = RecordingLogHandler.Entries()
    let serverEntries = RecordingLogHandler.Entries()
    let status = await ServerMain.exitStatus(logger: serverEntries.logger()) {
      // The README's entry point: boot before `execute()`, which would log the error a second time.
      let app = try await Application.make(.testing)
      app.logger = appEntries.logger()
      do {
        app.useFeatures(FeaturesService(root: root, logger: serviceEntries.logger(), contexts: validationContexts))
        try await app.asyncBoot()
        try await app.execute()
      } catch {
        try? await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()
    }
    #expect(status == 1)
    let errors = (appEntries.all + serviceEntries.all + serverEntries.all).filter { $0.level >= .error }
    #expect(errors.count == 1)
    #expect(serverEntries.all.first?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesValidationFailed")
    #expect(
      serverEntries.all.first?.message.hasPrefix(
        "server stopped: FeaturesValidationFailed: 1 problem in the features tree\n")
        == true)
  }

  @Test func aSessionsMiddlewareWhoseKeyCanBeNilFailsTheBootOfASessionsOnlyTree() async throws {
    let root = sessionsOnlyTree()
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in Session(user: user) }
    try await withApp { app in
      app.logger = RecordingLogHandler.Entries().logger()
      app.useFeatures(
        FeaturesService(root: root, logger: RecordingLogHandler.Entries().logger(), contexts: validationContexts))
      app.middleware.use(
        FeaturesMiddleware(sessions: sessions, scope: RequestScope.self, key: { $0.headers.first(name: "x-user") }) {
          RequestInfo($0)
        })
      await #expect(throws: SessionKeyMissing.self) { try await app.asyncBoot() }
    }
    try await sessions.close()
  }

  @Test func shutdownClosesTheRootAfterTheRequests() async throws {
    let teardowns = Teardowns()
    let root = testTree(teardowns: teardowns)
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      app.logger = RecordingLogHandler.Entries().logger()
      app.useFeatures(
        FeaturesService(root: root, logger: entries.logger(label: "features"), contexts: validationContexts))
      app.middleware.use(FeaturesMiddleware(root: root, scope: RequestScope.self) { RequestInfo($0) })
      app.get("connection") { req async throws -> String in
        "\(try await req.features.instance(of: Connection.self).number)"
      }
      try await app.asyncBoot()
      #expect(entries.all.contains { $0.message.hasPrefix("features tree validated: ") })
      let response = try await app.testing().sendRequest(.GET, "/connection")
      #expect(response.status == .ok)
      // Only validation's own connection, torn down as soon as validation made it: the root's is open.
      #expect(teardowns.all.filter { $0 == "root" }.count == 1)
    }
    #expect(teardowns.all.filter { $0 == "root" }.count == 2)
    #expect(teardowns.all.last == "root")
    #expect(entries.all.map(\.message).last == "features tree closed")
    #expect(throws: FeaturesClosed.self) { try root.branch(RequestScope.self, context: RequestInfo(id: "", path: "")) }
  }

  @Test func aSynchronousBootIsRefusedWithTheFix() async throws {
    try await withApp { app in
      app.logger = RecordingLogHandler.Entries().logger()
      app.useFeatures(FeaturesService(root: testTree(), logger: app.logger, contexts: validationContexts))
      let failure = #expect(throws: FeaturesBootNotAsync.self) { try app.boot() }
      #expect(
        failure?.diagnostic.renderedTree() == """
          FeaturesBootNotAsync: the features tree of Root cannot be validated by a synchronous boot
          └─ fix: make the application with `try await Application.make()` and run it with
                  `try await app.execute()`; in tests, call `try await app.asyncBoot()` before `app.testing()`
          """)
    }
  }
}
