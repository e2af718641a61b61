import Configuration
import Foundation
import Logging
import Synchronization
import TodoFeatures
import TodoVapor  // for `Todo`'s `Content` conformance only
import Vapor

/// The signed-in user's todos for one request, wired by hand: the same work as the Arbor server's
/// `Todos` (a logger with the request's id and user, the session's request count, the store).
struct HandWiredTodos {
  let user: String
  let database: TodoDatabase
  let logger: Logger

  func list() async throws -> [Todo] {
    let todos = try await database.todos(of: user)
    logger.debug("listed todos", metadata: ["count": "\(todos.count)"])
    return todos
  }

  func add(_ title: String) async throws -> Todo {
    let todo = try await database.add(title, for: user, at: Date())
    logger.info("added todo", metadata: ["todo.id": "\(todo.id)"])
    return todo
  }

  func complete(_ id: Int64) async throws -> Todo? {
    let todo = try await database.complete(id, for: user)
    logger.info("completed todo", metadata: ["todo.id": "\(id)", "found": "\(todo != nil)"])
    return todo
  }

  func delete(_ id: Int64) async throws -> Bool {
    let deleted = try await database.delete(id, for: user)
    logger.info("deleted todo", metadata: ["todo.id": "\(id)", "found": "\(deleted)"])
    return deleted
  }
}

/// The server's state, wired by hand: the database, the tokens, and a request count per signed-in
/// user, which stands for the Arbor server's session branches (opened on a user's first request,
/// closed on sign-out or shutdown, each logged).
final class HandWiredVaporServer: Sendable {
  let database: TodoDatabase
  let tokens: [String: String]
  let logger: Logger
  private let requests = Mutex<[String: Int]>([:])

  init(database: TodoDatabase, tokens: [String: String], logger: Logger) {
    self.database = database
    self.tokens = tokens
    self.logger = logger
  }

  /// The user a request's bearer token signs in, or 401.
  func user(_ req: Request) throws -> String {
    guard let token = req.headers.bearerAuthorization?.token else {
      throw Abort(.unauthorized, headers: ["WWW-Authenticate": "Bearer"], reason: "sign in with a bearer token")
    }
    guard let user = tokens[token] else { throw Abort(.unauthorized, reason: "unknown token") }
    return user
  }

  /// The caller's todos, or 401.
  func todos(_ req: Request) throws -> HandWiredTodos {
    let user = try user(req)
    let (served, opened) = requests.withLock { requests in
      let opened = requests[user] == nil
      requests[user, default: 0] += 1
      return (requests[user, default: 0], opened)
    }
    if opened { logger.info("session opened", metadata: ["user": "\(user)"]) }
    var requestLogger = logger
    requestLogger[metadataKey: "request.id"] = "\(req.id)"
    requestLogger[metadataKey: "user"] = "\(user)"
    requestLogger.debug("todos opened", metadata: ["session.requests": "\(served)"])
    return HandWiredTodos(user: user, database: database, logger: requestLogger)
  }

  /// Signs the caller out: forgets their request count, as the Arbor server closes their session.
  func signOut(_ req: Request) throws {
    let user = try user(req)
    guard let served = requests.withLock({ $0.removeValue(forKey: user) }) else { return }
    logger.info("session closed", metadata: ["user": "\(user)", "requests": "\(served)"])
  }
}

/// Closes the database when the application shuts down, as the Arbor server's root closes its store.
struct DatabaseShutdown: LifecycleHandler {
  let database: TodoDatabase

  func shutdownAsync(_ application: Application) async {
    try? await database.close()
  }
}

/// Configures `app` as `todo-server-vapor` does, wired by hand: the same routes, the same answers.
func configureHandWiredServer(_ app: Application, _ configuration: TodoConfiguration) async throws {
  // The same settings the Arbor servers read as properties, read here without Arbor.
  let reader = configuration.settings.reader
  app.http.server.configuration.hostname = configuration.host
  app.http.server.configuration.port = reader.int(
    forKey: ConfigKey(ServerPort.configurationKey), default: ServerPort.defaultValue)
  let database = try await TodoDatabase.open(
    path: reader.string(forKey: ConfigKey(DatabasePath.configurationKey)), logger: app.logger)
  try await database.migrate()
  app.lifecycle.use(DatabaseShutdown(database: database))
  let server = HandWiredVaporServer(database: database, tokens: configuration.tokens, logger: app.logger)

  app.get("health") { _ in "ok" }
  let api = app.grouped("api")
  api.get("todos") { req async throws -> [Todo] in
    try await server.todos(req).list()
  }
  api.post("todos") { req async throws -> Response in
    let todos = try server.todos(req)
    let new = try req.content.decode(NewTodo.self)
    return try await todos.add(new.title).encodeResponse(status: .created, for: req)
  }
  api.patch("todos", ":id") { req async throws -> Todo in
    let id = try req.parameters.require("id", as: Int64.self)
    guard let todo = try await server.todos(req).complete(id) else { throw Abort(.notFound) }
    return todo
  }
  api.delete("todos", ":id") { req async throws -> HTTPStatus in
    let id = try req.parameters.require("id", as: Int64.self)
    guard try await server.todos(req).delete(id) else { throw Abort(.notFound) }
    return .noContent
  }
  api.delete("session") { req async throws -> HTTPStatus in
    try server.signOut(req)
    return .noContent
  }
}
