import Arbor
import ArborHummingbird
import ArborServiceLifecycleTesting
import Hummingbird
import Synchronization

/// What a request branch carries in these tests: the request id Hummingbird gave it, its path, and
/// the user its `x-user` header names.
struct RequestInfo: Sendable, Hashable {
  var id: String
  var path: String
  var user: String?
}

/// The scope of request branches.
enum RequestScope: FeaturesScope { typealias Context = RequestInfo }

/// The signed-in user a session branch is about.
struct Session: Sendable, Hashable {
  var user: String
}

/// The scope of session branches.
enum SessionScope: FeaturesScope { typealias Context = Session }

/// Hands out increasing numbers, so a test can tell instances apart.
struct Counter: StaticFeature {
  var next: @Sendable () -> Int
  static var placeholder: Counter { Counter(next: unimplemented("Counter.next", placeholder: 0)) }

  /// A counter starting at 1.
  static func live() -> Counter {
    let value = Atomic<Int>(0)
    return Counter(next: { value.add(1, ordering: .relaxed).newValue })
  }
}

/// What was torn down, in order (`request /path 3`, `session ann`, `root`).
typealias Teardowns = RecordedEvents

/// One instance per request branch: which number it got, and the request it was loaded for.
struct RequestTag: CacheableFeature {
  var number: Int
  var info: RequestInfo
  static var placeholder: RequestTag { RequestTag(number: 0, info: RequestInfo(id: "", path: "")) }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { features in
      RequestTag(
        number: try features.instance(of: Counter.self).next(),
        info: try features.context(for: RequestScope.self))
    } teardown: { tag in
      teardowns.append("request \(tag.info.path) \(tag.number)")
    }
  }
}

/// One instance per session branch: which number it got, and the session's user.
struct SessionTag: CacheableFeature {
  var number: Int
  var user: String
  static var placeholder: SessionTag { SessionTag(number: 0, user: "") }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { features in
      SessionTag(
        number: try features.instance(of: Counter.self).next(),
        user: try features.context(for: SessionScope.self).user)
    } teardown: { tag in
      teardowns.append("session \(tag.user)")
    }
  }
}

/// One instance for the whole tree, torn down when the root closes.
struct Connection: CacheableFeature {
  var number: Int
  static var placeholder: Connection { Connection(number: 0) }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { features in
      Connection(number: try features.instance(of: Counter.self).next())
    } teardown: { _ in
      teardowns.append("root")
    }
  }
}

/// A todo looked up by the id in the request's path: its loader throws `HTTPError(.notFound)` for
/// any `/todos/` id but 1, on purpose.
struct Todo: CacheableFeature {
  var title: String
  static var placeholder: Todo { Todo(title: "") }

  static func live() -> FeatureLoader {
    .cacheable { features in
      let path = try features.context(for: RequestScope.self).path
      guard !path.hasPrefix("/todos/") || path == "/todos/1" else {
        throw HTTPError(.notFound, message: "no todo at \(path)")
      }
      return Todo(title: "buy milk")
    }
  }
}

/// A feature nobody registers, for the error-mapping tests.
struct Unregistered: CacheableFeature {
  var value: Int
  static var placeholder: Unregistered { Unregistered(value: 0) }
}

/// The tree most tests serve: a counter and a connection at the root, a tag per request and per
/// session, each torn down into `teardowns`.
func testTree(teardowns: Teardowns = Teardowns()) -> Features {
  FeaturesRoot { registry in
    registry.use(Counter.live())
    registry.use(Connection.live(teardowns: teardowns))
    registry.defineScope(RequestScope.self) { registry in
      registry.use(RequestTag.live(teardowns: teardowns))
      registry.use(Todo.live())
    }
    registry.defineScope(SessionScope.self) { registry in
      registry.use(SessionTag.live(teardowns: teardowns))
    }
  }
}

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
