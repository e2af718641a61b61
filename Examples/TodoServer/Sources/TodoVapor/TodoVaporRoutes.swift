import Arbor
import ArborVapor
import TodoFeatures
import Vapor

/// Vapor answers a route that returns a todo with its JSON.
extension Todo: Content {}

/// The server's routes, as the Hummingbird server has them: `/health` for anyone, and under `/api`
/// the signed-in user's todos, each request in a branch of its own below the user's session branch.
///
/// - Parameters:
///   - app: The application to add them to.
///   - sessions: The session branches, by bearer token.
func addTodoRoutes(to app: Application, sessions: KeyedBranches<String, SessionScope>) {
  app.get("health") { _ in "ok" }

  let api = app.grouped("api").grouped(
    // No handler reads `Features.current()`: requests and their loads skip that task-local.
    FeaturesMiddleware(sessions: sessions, scope: RequestScope.self, key: bearerToken, setsCurrentFeatures: false) {
      req in RequestInfo(id: req.id, method: req.method.rawValue, path: req.url.path)
    })

  api.get("todos") { req async throws -> [Todo] in
    try await req.features.instance(of: Todos.self).list()
  }
  api.post("todos") { req async throws -> Response in
    let new = try req.content.decode(NewTodo.self)
    let todo = try await req.features.instance(of: Todos.self).add(new.title)
    return try await todo.encodeResponse(status: .created, for: req)
  }
  api.patch("todos", ":id") { req async throws -> Todo in
    let id = try req.parameters.require("id", as: Int64.self)
    guard let todo = try await req.features.instance(of: Todos.self).complete(id) else { throw Abort(.notFound) }
    return todo
  }
  api.delete("todos", ":id") { req async throws -> HTTPStatus in
    let id = try req.parameters.require("id", as: Int64.self)
    guard try await req.features.instance(of: Todos.self).delete(id) else { throw Abort(.notFound) }
    return .noContent
  }
  // Signing out closes the session branch, once this request (which runs in it) has ended.
  api.delete("session") { req async throws -> HTTPStatus in
    try await sessions.evict(try bearerToken(req))
    return .noContent
  }
}

/// The bearer token of a request; a request without one is answered 401.
@Sendable func bearerToken(_ req: Request) throws -> String {
  guard let token = req.headers.bearerAuthorization?.token else {
    throw Abort(.unauthorized, headers: ["WWW-Authenticate": "Bearer"], reason: "sign in with a bearer token")
  }
  return token
}
