import Arbor
import ArborVapor
import TodoFeatures
import Vapor

/// Configures a Vapor application as the todo server: the same features tree, sessions and routes
/// as the Hummingbird server, from the same framework-free `TodoFeatures`.
///
/// ```swift
/// let app = try await Application.make(.detect())
/// try configureTodoServer(app, TodoConfiguration())
/// try await app.execute()
/// ```
///
/// - Parameters:
///   - app: The application; its logger is the server's.
///   - configuration: Where to listen, where the store is, who can sign in.
///   - root: The features tree; `todoTree(_:logger:)` unless a test passes its own.
public func configureTodoServer(_ app: Application, _ configuration: TodoConfiguration, root: Features? = nil) {
  let root = root ?? todoTree(configuration, logger: app.logger)
  app.http.server.configuration.hostname = configuration.host
  app.http.server.configuration.port = root[ServerPort.self]
  let sessions = todoSessions(root, configuration) { Abort(.unauthorized, reason: "unknown token") }
  app.useFeatures(
    FeaturesService(root: root, logger: app.logger) { contexts in
      contexts.use(Session(user: "validation"), for: SessionScope.self)
      contexts.use(RequestInfo(id: "validation", method: "GET", path: "/"), for: RequestScope.self)
    })
  // Sessions unused for `sessionIdleTime` are closed within a minute, even when no request comes.
  app.lifecycle.use(ServiceLifecycleHandler(IdleBranchesEviction(sessions, every: .seconds(60))))
  addTodoRoutes(to: app, sessions: sessions)
}
