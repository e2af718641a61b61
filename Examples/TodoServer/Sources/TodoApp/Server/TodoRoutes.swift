import Arbor
import ArborHummingbird
import Hummingbird

/// The server's routes: `/health` for anyone, and under `/api` the signed-in user's todos, each
/// request in a branch of its own below the user's session branch.
///
/// - Parameters:
///   - router: The router to add them to.
///   - sessions: The session branches, by bearer token.
func addTodoRoutes(to router: Router<TodoRequestContext>, sessions: KeyedBranches<String, SessionScope>) {
  router.get("health") { _, _ in "ok" }

  let api = router.group("api")
    .add(
      // No handler reads `Features.current()`: requests and their loads skip that task-local.
      middleware: FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self, key: bearerToken, setsCurrentFeatures: false
      ) { request, context in
        RequestInfo(id: context.id, method: request.method.rawValue, path: request.uri.path)
      })

  api.get("todos") { _, context -> [Todo] in
    try await context.instance(of: Todos.self).list()
  }
  api.post("todos") { request, context -> EditedResponse<Todo> in
    let new = try await request.decode(as: NewTodo.self, context: context)
    let todo = try await context.instance(of: Todos.self).add(new.title)
    return EditedResponse(status: .created, response: todo)
  }
  api.patch("todos/:id") { _, context -> Todo in
    let id = try context.parameters.require("id", as: Int64.self)
    guard let todo = try await context.instance(of: Todos.self).complete(id) else { throw HTTPError(.notFound) }
    return todo
  }
  api.delete("todos/:id") { _, context -> HTTPResponse.Status in
    let id = try context.parameters.require("id", as: Int64.self)
    guard try await context.instance(of: Todos.self).delete(id) else { throw HTTPError(.notFound) }
    return .noContent
  }
  // Signing out closes the session branch, once this request (which runs in it) has ended.
  api.delete("session") { request, context -> HTTPResponse.Status in
    try await sessions.evict(try bearerToken(request, context))
    return .noContent
  }
}

/// The bearer token of a request; a request without one is answered 401.
@Sendable public func bearerToken(_ request: Request, _ context: TodoRequestContext) throws -> String {
  guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
    throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "sign in with a bearer token")
  }
  return String(header.dropFirst("Bearer ".count))
}
