import Arbor
import ArborServiceLifecycleTesting
import ArborVapor
import Synchronization
import Vapor

/// What a request branch carries in these tests: Vapor's request id, the path, and the user its
/// `x-user` header names.
struct RequestInfo: Sendable, Hashable {
  var id: String
  var path: String
  var user: String?

  init(id: String, path: String, user: String? = nil) {
    self.id = id
    self.path = path
    self.user = user
  }

  /// The request's info as the middleware builds it in these tests.
  init(_ request: Request) {
    self.init(id: request.id, path: request.url.path, user: request.headers.first(name: "x-user"))
  }
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

/// A todo looked up by the id in the request's path: its loader throws `Abort(.notFound)` for any
/// `/todos/` id but 1, on purpose.
struct Todo: CacheableFeature {
  var title: String
  static var placeholder: Todo { Todo(title: "") }

  static func live() -> FeatureLoader {
    .cacheable { features in
      let path = try features.context(for: RequestScope.self).path
      guard !path.hasPrefix("/todos/") || path == "/todos/1" else {
        throw Abort(.notFound, reason: "no todo at \(path)")
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
/// session, each torn down into `teardowns`; request branches below sessions too.
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

/// The contexts validation uses for the test tree's scopes.
@Sendable func validationContexts(_ contexts: inout ValidationContexts) {
  contexts.use(RequestInfo(id: "validation", path: "/todos/1"), for: RequestScope.self)
  contexts.use(Session(user: "validation"), for: SessionScope.self)
}
