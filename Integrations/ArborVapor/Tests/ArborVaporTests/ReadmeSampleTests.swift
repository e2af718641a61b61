// The README's entry point, compiled here (an `@main` type cannot be in a test target), and its
// configuration run.
import Arbor
import ArborServiceLifecycleTesting
import ArborVapor
import Logging
import Testing
import VaporTesting

enum ReadmeServer {
  static func main() async {
    let logger = Logger(label: "server")
    await ServerMain.run(logger: logger) {
      let app = try await Application.make(.detect())
      do {
        try await configure(app)
        try await app.execute()
      } catch {
        try? await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()
    }
  }

  /// The README's configuration: sessions by bearer token, a request branch below each, the tree
  /// validated at boot and idle sessions evicted.
  static func configure(_ app: Application) async throws {
    let root = testTree()
    let accounts = Accounts()
    let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .seconds(900)) { (token: String) in
      guard let user = accounts.user(token) else { throw Abort(.unauthorized) }
      return Session(user: user)
    }
    app.useFeatures(
      FeaturesService(root: root, logger: app.logger) { contexts in
        contexts.use(Session(user: "validation"), for: SessionScope.self)
        contexts.use(RequestInfo(id: "validation", path: "/"), for: RequestScope.self)
      })
    app.lifecycle.use(ServiceLifecycleHandler(IdleBranchesEviction(sessions, every: .seconds(60))))
    let api = app.grouped(
      FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self,
        key: { req in
          req.headers.bearerAuthorization?.token
        }
      ) { req in RequestInfo(id: req.id, path: req.url.path) })
    api.get("me") { req async throws -> String in
      try await req.features.instance(of: SessionTag.self).user
    }
  }

  /// Who signs in with which token.
  struct Accounts {
    func user(_ token: String) -> String? { token == "ann-token" ? "ann" : nil }
  }
}

@Suite struct ReadmeSampleTests {
  @Test func theReadmeConfigurationBootsAndServesASession() async throws {
    try await withApp { app in
      app.logger = RecordingLogHandler.Entries().logger()
      try await ReadmeServer.configure(app)
      try await app.asyncBoot()
      let response = try await app.testing().sendRequest(.GET, "/me", headers: ["Authorization": "Bearer ann-token"])
      #expect(response.body.string == "ann")
      let refused = try await app.testing().sendRequest(.GET, "/me", headers: ["Authorization": "Bearer nobody"])
      #expect(refused.status == .unauthorized)
    }
  }
}
