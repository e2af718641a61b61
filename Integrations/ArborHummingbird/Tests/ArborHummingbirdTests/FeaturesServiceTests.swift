import Arbor
import ArborHummingbird
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing

@Suite struct FeaturesServiceTests {
  /// A request feature whose loader requests something nobody registered: a wiring mistake that
  /// would otherwise surface on the first request.
  struct Audit: CacheableFeature {
    var record: @Sendable (String) -> Void
    static var placeholder: Audit { Audit(record: unimplemented("Audit.record")) }

    static func live() -> FeatureLoader {
      .cacheable { features in
        let unregistered: Unregistered = try features.instance()
        return Audit(record: { _ in _ = unregistered })
      }
    }
  }

  /// An application serving `root` with a features service that validates it.
  func application(root: Features, entries: RecordingLogHandler.Entries) -> Application<
    RouterResponder<BasicFeaturesRequestContext>
  > {
    let router = requestRouter(root: root)
    router.get("tag") { request, context -> String in
      let tag: RequestTag = try await context.instance()
      return tag.info.path
    }
    var app = Application(router: router, logger: entries.logger())
    app.addFeatures(
      FeaturesService(root: root, logger: entries.logger(label: "features")) { contexts in
        contexts.use(RequestInfo(id: "validation", path: "/"), for: RequestScope.self)
        contexts.use(Session(user: "validation"), for: SessionScope.self)
      })
    return app
  }

  @Test func aSoundTreeStartsAndServes() async throws {
    let entries = RecordingLogHandler.Entries()
    try await application(root: testTree(), entries: entries).test(.router) { client in
      let response = try await client.execute(uri: "/tag", method: .get)
      #expect(String(buffer: response.body) == "/tag")
    }
    #expect(entries.all.contains { $0.level == .info && $0.message.hasPrefix("features tree validated") })
  }

  @Test func aWiringMistakeIsRefusedAtStartUpWithTheWholeReport() async throws {
    let root = FeaturesRoot { registry in
      registry.use(Counter.live())
      registry.defineScope(RequestScope.self) { registry in
        registry.use(RequestTag.live(teardowns: Teardowns()))
        registry.use(Audit.live())
      }
      registry.defineScope(SessionScope.self) { registry in
        registry.use(SessionTag.live(teardowns: Teardowns()))
        registry.use(Audit.live())
      }
    }
    let entries = RecordingLogHandler.Entries()
    let served = Box(false)
    let failure = await #expect(throws: FeaturesValidationFailed.self) {
      try await application(root: root, entries: entries).test(.router) { client in
        served.value = true
      }
    }
    #expect(!served.value)
    // Both mistakes, in one report.
    #expect(failure?.problems.count == 2)
    #expect(failure?.problems.allSatisfy { $0 is FeatureUndefined } == true)
    let critical = try #require(entries.all.first { $0.level == .critical })
    #expect(critical.message.hasPrefix("FeaturesValidationFailed: 2 problems in the features tree"))
    #expect(critical.metadata[DiagnosticLogMetadata.diagnosticKey] != nil)
  }
}

extension FeaturesServiceTests {
  @Test func shutdownClosesTheRootAfterTheServer() async throws {
    let teardowns = Teardowns()
    let entries = RecordingLogHandler.Entries()
    let root = testTree(teardowns: teardowns)
    let router = requestRouter(root: root)
    router.get("connection") { request, context -> String in
      let connection: Connection = try await context.instance()
      return "\(connection.number)"
    }
    var app = Application(router: router, logger: entries.logger())
    app.addFeatures(
      FeaturesService(root: root, logger: entries.logger(label: "features")) { contexts in
        contexts.use(RequestInfo(id: "validation", path: "/"), for: RequestScope.self)
        contexts.use(Session(user: "validation"), for: SessionScope.self)
      })
    try await app.test(.live) { client in
      let response = try await client.execute(uri: "/connection", method: .get)
      #expect(response.status == .ok)
      // Only validation's own connection, torn down as soon as validation made it: the root's is open.
      #expect(teardowns.all.filter { $0 == "root" }.count == 1)
    }
    #expect(teardowns.all.filter { $0 == "root" }.count == 2)
    #expect(teardowns.all.last == "root")
    // The server was shutting down, and its service had finished, before the root closed.
    let messages = entries.all.map(\.message)
    let serverShuttingDown = try #require(messages.firstIndex(of: "Server State: shuttingDown"))
    let rootClosed = try #require(messages.firstIndex(of: "features tree closed"))
    #expect(messages[serverShuttingDown..<rootClosed].contains("Service finished"))
    // A request after shutdown would find the root closed.
    #expect(throws: FeaturesClosed.self) { try root.branch(RequestScope.self, context: RequestInfo(id: "", path: "")) }
  }

  @Test func aFailedStartUpUnderServerMainIsLoggedOnce() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(Audit.live()) }
    }
    let appEntries = RecordingLogHandler.Entries()
    let serviceEntries = RecordingLogHandler.Entries()
    let serverEntries = RecordingLogHandler.Entries()
    let status = await ServerMain.exitStatus(logger: serverEntries.logger()) {
      var app = Application(
        router: Router(context: BasicFeaturesRequestContext.self),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: appEntries.logger())
      app.addFeatures(FeaturesService(root: root, logger: serviceEntries.logger(), contexts: validationContexts))
      try await app.runService()
    }
    #expect(status == 1)
    let errors = (appEntries.all + serviceEntries.all + serverEntries.all).filter { $0.level >= .error }
    #expect(errors.count == 1)
    #expect(serverEntries.all.first?.metadata[DiagnosticLogMetadata.kindKey] == "FeaturesValidationFailed")
  }

  @Test func aSessionsMiddlewareWhoseKeyCanBeNilFailsTheStartUpOfASessionsOnlyTree() async throws {
    let root = sessionsOnlyTree()
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in Session(user: user) }
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(
      middleware: FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self, key: { request, _ in request.headers[.init("x-user")!] }
      ) { request, context in RequestInfo(request: request, context: context) })
    var app = Application(router: router, logger: RecordingLogHandler.Entries().logger())
    app.addFeatures(
      FeaturesService(root: root, logger: RecordingLogHandler.Entries().logger(), contexts: validationContexts))
    let served = Box(false)
    await #expect(throws: SessionKeyMissing.self) {
      try await app.test(.router) { _ in served.value = true }
    }
    #expect(!served.value)
    try await sessions.close()
  }
}
