import Configuration
import Foundation
import Hummingbird
import Logging
import Synchronization
import TodoApp

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

/// The server's state, wired by hand: the database, the tokens, and a request count per user.
final class HandWiredServer: Sendable {
  let database: TodoDatabase
  let tokens: [String: String]
  let logger: Logger
  private let requests = Mutex<[String: Int]>([:])

  init(database: TodoDatabase, tokens: [String: String], logger: Logger) {
    self.database = database
    self.tokens = tokens
    self.logger = logger
  }

  /// The caller's todos, or 401.
  func todos(_ request: Request, _ context: some RequestContext) throws -> HandWiredTodos {
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
      throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "sign in with a bearer token")
    }
    guard let user = tokens[String(header.dropFirst("Bearer ".count))] else {
      throw HTTPError(.unauthorized, message: "unknown token")
    }
    let (served, opened) = requests.withLock { requests in
      let opened = requests[user] == nil
      requests[user, default: 0] += 1
      return (requests[user, default: 0], opened)
    }
    if opened { logger.info("session opened", metadata: ["user": "\(user)"]) }
    var requestLogger = logger
    requestLogger[metadataKey: "request.id"] = "\(context.id)"
    requestLogger[metadataKey: "user"] = "\(user)"
    requestLogger.debug("todos opened", metadata: ["session.requests": "\(served)"])
    return HandWiredTodos(user: user, database: database, logger: requestLogger)
  }
}

/// The hand-wired server's state: its database open and migrated, its port.
func handWiredServer(
  _ configuration: TodoConfiguration, logger: Logger
) async throws -> (server: HandWiredServer, address: BindAddress) {
  // The same settings the Arbor servers read as properties, read here without Arbor.
  let reader = configuration.settings.reader
  let port = reader.int(forKey: ConfigKey(ServerPort.configurationKey), default: ServerPort.defaultValue)
  let database = try await TodoDatabase.open(
    path: reader.string(forKey: ConfigKey(DatabasePath.configurationKey)), logger: logger)
  try await database.migrate()
  let server = HandWiredServer(database: database, tokens: configuration.tokens, logger: logger)
  return (server, .hostname(configuration.host, port: port))
}

/// The same server as `todoApplication`, wired by hand.
public func handWiredApplication(
  _ configuration: TodoConfiguration, logger: Logger
) async throws -> Application<RouterResponder<BasicRequestContext>> {
  let (server, address) = try await handWiredServer(configuration, logger: logger)
  let router = Router()
  router.get("health") { _, _ in "ok" }
  let api = router.group("api")
  addListAndAdd(to: api, server)
  api.patch("todos/:id") { request, context -> Todo in
    let id = try context.parameters.require("id", as: Int64.self)
    guard let todo = try await server.todos(request, context).complete(id) else { throw HTTPError(.notFound) }
    return todo
  }
  api.delete("todos/:id") { request, context -> HTTPResponse.Status in
    let id = try context.parameters.require("id", as: Int64.self)
    guard try await server.todos(request, context).delete(id) else { throw HTTPError(.notFound) }
    return .noContent
  }
  return Application(router: router, configuration: .init(address: address), logger: logger)
}

/// `GET /todos` and `POST /todos`, wired by hand.
func addListAndAdd<Context: RequestContext>(to api: RouterGroup<Context>, _ server: HandWiredServer) {
  api.get("todos") { request, context -> [Todo] in
    try await server.todos(request, context).list()
  }
  api.post("todos") { request, context -> EditedResponse<Todo> in
    let todos = try server.todos(request, context)
    let new = try await request.decode(as: NewTodo.self, context: context)
    return EditedResponse(status: .created, response: try await todos.add(new.title))
  }
}
