import Arbor
import ArborHummingbird
import Hummingbird
import Logging
import TodoApp

/// A part of the Arbor server's request added to the hand-wired server, whose handler still does the
/// request's work by hand: the load test's `STAGE`, which measures what each part costs a whole
/// server. Each stage adds to the one before it.
enum BuildUpStage: String, CaseIterable {
  /// A middleware that passes the request on, and the Arbor server's request context.
  case middleware
  /// `FeaturesMiddleware` from a root: a request branch with its `RequestInfo`, made and closed.
  case branch
  /// `FeaturesMiddleware` below a session kept in `KeyedBranches`: the session's lease too.
  case session
}

/// Passes every request on: the cost of a middleware, and of a context with a features slot.
struct PassingMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    try await next(request, context)
  }
}

/// The hand-wired server with `stage` added: `GET` and `POST /api/todos` and `/health`, what the load
/// test requests.
func buildUpApplication(
  _ stage: BuildUpStage, _ configuration: TodoConfiguration, logger: Logger
) async throws -> some ApplicationProtocol {
  let (server, address) = try await handWiredServer(configuration, logger: logger)
  let router = Router(context: TodoRequestContext.self)
  router.get("health") { _, _ in "ok" }
  let api = router.group("api")
  // The request's info, as the Arbor server's branches carry it.
  let info: @Sendable (Request, TodoRequestContext) -> RequestInfo = { request, context in
    RequestInfo(id: context.id, method: request.method.rawValue, path: request.uri.path)
  }
  switch stage {
  case .middleware:
    api.add(middleware: PassingMiddleware())
  case .branch:
    let root = FeaturesRoot { registry in registry.defineScope(RequestScope.self) { _ in } }
    api.add(
      middleware: FeaturesMiddleware(root: root, scope: RequestScope.self, setsCurrentFeatures: false, context: info))
  case .session:
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.defineScope(RequestScope.self) { _ in } }
    }
    let tokens = configuration.tokens
    let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: configuration.sessionIdleTime) {
      (token: String) in
      guard let user = tokens[token] else { throw HTTPError(.unauthorized, message: "unknown token") }
      return Session(user: user)
    }
    api.add(
      middleware: FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self, key: bearerToken, setsCurrentFeatures: false, context: info))
  }
  addListAndAdd(to: api, server)
  return Application(router: router, configuration: .init(address: address), logger: logger)
}
