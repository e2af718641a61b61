// The README's server, as the README shows it: a reader copies this file. The README marks
// `TodoApp` `@main`; a test target cannot have an entry point of its own.
import ArborVapor
import Logging
import Vapor

struct Session: Sendable, Hashable {
  var user: String
}

struct RequestInfo: Sendable, Hashable {
  var id: String
  var path: String
}

enum SessionScope: FeaturesScope { typealias Context = Session }
enum RequestScope: FeaturesScope { typealias Context = RequestInfo }

/// Every request is branched below the caller's session: its scope is defined for sessions only.
func makeRoot() -> Features {
  FeaturesRoot { registry in
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Todos.live())
      registry.defineScope(RequestScope.self) { _ in }
    }
  }
}

func configure(_ app: Application, root: Features, accounts: Accounts) async throws {
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
        // No credential: refused with 401, as a wrong one is. A nil key would branch the request
        // from the root, where RequestScope is not defined.
        guard let token = req.headers.bearerAuthorization?.token else { throw Abort(.unauthorized) }
        return token
      }
    ) { req in RequestInfo(id: req.id, path: req.url.path) })
  api.get("todos") { req async throws -> String in
    try await req.features.instance(of: Todos.self).list().joined(separator: "\n")
  }
}

struct TodoApp {
  static func main() async {
    let logger = Logger(label: "server")
    LoggingIssueReporter(logger: logger).install()
    await ServerMain.run(logger: logger) {
      let app = try await Application.make(.detect())
      do {
        try await configure(app, root: makeRoot(), accounts: Accounts())
        try await app.asyncBoot()  // validates the tree: a failure is thrown here, and logged once
        try await app.execute()
      } catch {
        try? await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()
    }
  }
}
