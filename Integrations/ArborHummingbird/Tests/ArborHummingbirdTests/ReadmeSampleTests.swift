// The root README's Hummingbird sample, compiled and run here (the root's DocsSamplesTests checks
// that the README shows this code).
import Arbor
import ArborHummingbird
import ArborIntegrationFixtures
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The README's feature: one per request branch, greeting from the request's path.
struct Greeter: CacheableFeature {
  var greeting: @Sendable () -> String
  static var placeholder: Greeter { Greeter(greeting: unimplemented("Greeter.greeting", placeholder: "")) }

  static func live() -> FeatureLoader {
    .cacheable { features in
      let request = try features.context(for: RequestScope.self)
      return Greeter(greeting: { "Hello from \(request.path)" })
    }
  }
}

func readmeRouter(root: Features) -> Router<BasicFeaturesRequestContext> {
  let router = Router(context: BasicFeaturesRequestContext.self)
  router.add(
    middleware: FeaturesMiddleware(root: root, scope: RequestScope.self) { request, context in
      RequestInfo(id: context.id, path: request.uri.path)  // the context of this request's branch
    })
  router.get("greeting") { request, context -> String in
    let greeter: Greeter = try await context.instance()  // loaded in this request's branch
    return greeter.greeting()
  }
  return router
}

@Suite struct ReadmeSampleTests {
  @Test func theReadmeRouteResolvesFromItsRequestBranch() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(Greeter.live())
      }
    }
    try await Application(router: readmeRouter(root: root)).test(.router) { client in
      let response = try await client.execute(uri: "/greeting", method: .get)
      #expect(String(buffer: response.body) == "Hello from /greeting")
    }
  }
}

/// The integration README's entry point, compiled here (an `@main` type cannot be in a test target).
enum ReadmeServer {
  static func main() async {
    let logger = Logger(label: "server")
    await ServerMain.run(logger: logger) {
      try await makeApplication(logger: logger).runService()
    }
  }

  /// The README's server: its greeting route, on an empty tree.
  static func makeApplication(logger: Logger) -> some ApplicationProtocol {
    Application(router: readmeRouter(root: FeaturesRoot { _ in }), logger: logger)
  }
}
