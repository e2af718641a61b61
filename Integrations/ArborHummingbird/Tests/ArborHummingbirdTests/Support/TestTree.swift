import Arbor
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

/// One instance per request branch: which number it got, and the request it was loaded for.
struct RequestTag: CacheableFeature {
  var number: Int
  var info: RequestInfo
  static var placeholder: RequestTag { RequestTag(number: 0, info: RequestInfo(id: "", path: "")) }

  static func live() -> FeatureLoader {
    .cacheable { features in
      RequestTag(
        number: try features.instance(of: Counter.self).next(),
        info: try features.context(for: RequestScope.self))
    }
  }
}

/// One instance per session branch: which number it got, and the session's user.
struct SessionTag: CacheableFeature {
  var number: Int
  var user: String
  static var placeholder: SessionTag { SessionTag(number: 0, user: "") }

  static func live() -> FeatureLoader {
    .cacheable { features in
      SessionTag(
        number: try features.instance(of: Counter.self).next(),
        user: try features.context(for: SessionScope.self).user)
    }
  }
}

/// A feature nobody registers, for the error-mapping tests.
struct Unregistered: CacheableFeature {
  var value: Int
  static var placeholder: Unregistered { Unregistered(value: 0) }
}

/// The tree most tests serve: a counter at the root, a tag per request and per session.
func testTree() -> Features {
  FeaturesRoot { registry in
    registry.use(Counter.live())
    registry.defineScope(RequestScope.self) { registry in
      registry.use(RequestTag.live())
    }
    registry.defineScope(SessionScope.self) { registry in
      registry.use(SessionTag.live())
    }
  }
}

extension RequestInfo {
  /// The request's info as the middleware builds it in these tests.
  init(request: Request, context: some RequestContext) {
    self.init(id: context.id, path: request.uri.path, user: request.headers[.init("x-user")!])
  }
}
