import Arbor
import ArborHummingbird
import Hummingbird
import Logging

/// Builds the server: its features tree, the session branches, the routes, and the features
/// service that validates the tree at start-up and closes it on shutdown.
///
/// ```swift
/// let app = try await todoApplication(TodoConfiguration(), logger: Logger(label: "todo-server"))
/// try await app.runService()
/// ```
///
/// - Parameters:
///   - configuration: Where to listen, where the store is, who can sign in.
///   - logger: The server's logger.
///   - root: The features tree; ``todoTree(_:logger:)`` unless a test passes its own.
/// - Returns: The application, ready to run.
public func todoApplication(
  _ configuration: TodoConfiguration, logger: Logger, root: Features? = nil
) -> Application<RouterResponder<TodoRequestContext>> {
  let root = root ?? todoTree(configuration, logger: logger)
  let sessions = todoSessions(root, configuration) { HTTPError(.unauthorized, message: "unknown token") }
  let router = Router(context: TodoRequestContext.self)
  addTodoRoutes(to: router, sessions: sessions)
  var app = Application(
    router: router, configuration: .init(address: .hostname(configuration.host, port: root[ServerPort.self])),
    logger: logger)
  app.addFeatures(
    FeaturesService(root: root, logger: logger) { contexts in
      contexts.use(Session(user: "validation"), for: SessionScope.self)
      contexts.use(RequestInfo(id: "validation", method: "GET", path: "/"), for: RequestScope.self)
    })
  // Sessions unused for `sessionIdleTime` are closed within a minute, even when no request comes.
  app.addServices(IdleBranchesEviction(sessions, every: .seconds(60)))
  return app
}
