// The README's server, as the README shows it: a reader copies this file. The README marks
// `TodoApp` `@main`; a test target cannot have an entry point of its own.
import ArborHummingbird
import Hummingbird
import Logging

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

func makeApplication(root: Features, accounts: Accounts, logger: Logger) -> some ApplicationProtocol {
  let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .seconds(900)) { (token: String) in
    guard let user = accounts.user(token) else { throw HTTPError(.unauthorized) }
    return Session(user: user)
  }
  let router = Router(context: BasicFeaturesRequestContext.self)
  router.add(
    middleware: FeaturesMiddleware(
      sessions: sessions, scope: RequestScope.self,
      key: { request, _ in
        // No credential: refused with 401, as a wrong one is. A nil key would branch the request
        // from the root, where RequestScope is not defined.
        guard let token = request.headers[.authorization] else { throw HTTPError(.unauthorized) }
        return token
      }
    ) { request, context in RequestInfo(id: context.id, path: request.uri.path) })
  router.get("todos") { request, context -> String in
    try await context.instance(of: Todos.self).list().joined(separator: "\n")
  }
  var app = Application(router: router, logger: logger)
  app.addFeatures(
    FeaturesService(root: root, logger: logger) { contexts in
      contexts.use(Session(user: "validation"), for: SessionScope.self)
      contexts.use(RequestInfo(id: "validation", path: "/"), for: RequestScope.self)
    })
  app.addServices(IdleBranchesEviction(sessions, every: .seconds(60)))
  return app
}

struct TodoApp {
  static func main() async {
    let logger = Logger(label: "server")
    LoggingIssueReporter(logger: logger).install()
    await ServerMain.run(logger: logger) {
      try await makeApplication(root: makeRoot(), accounts: Accounts(), logger: logger).runService()
    }
  }
}
