import ArborHummingbird
import ArborIntegrationFixtures
import Hummingbird

/// A router whose every request gets a branch of `RequestScope` from `root`, with the request's
/// info as its context.
func requestRouter(
  root: Features, errors: DiagnosticErrorMapping = DiagnosticErrorMapping()
) -> Router<BasicFeaturesRequestContext> {
  let router = Router(context: BasicFeaturesRequestContext.self)
  router.add(
    middleware: FeaturesMiddleware(root: root, scope: RequestScope.self, errors: errors) { request, context in
      RequestInfo(request: request, context: context)
    })
  return router
}

extension RequestInfo {
  /// The request's info as the middleware builds it in these tests.
  init(request: Request, context: some RequestContext) {
    self.init(id: context.id, path: request.uri.path, user: request.headers[.init("x-user")!])
  }
}
