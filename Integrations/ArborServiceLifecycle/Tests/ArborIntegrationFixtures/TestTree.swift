import Arbor
import ArborServiceLifecycleTesting

/// The tree most tests serve: a counter and a connection at the root, a tag per request and per
/// session, each torn down into `teardowns`, and a todo per request, missing as `notFound` says.
///
/// - Parameters:
///   - teardowns: Where the teardowns are recorded.
///   - notFound: What a missing todo's loader throws: a server's 404 error.
public func testTree(
  teardowns: Teardowns = Teardowns(),
  notFound: @escaping @Sendable (String) -> any Error = { TodoNotFound(path: $0) }
) -> Features {
  FeaturesRoot { registry in
    registry.use(Counter.live())
    registry.use(Connection.live(teardowns: teardowns))
    registry.defineScope(RequestScope.self) { registry in
      registry.use(RequestTag.live(teardowns: teardowns))
      registry.use(Todo.live(notFound: notFound))
    }
    registry.defineScope(SessionScope.self) { registry in
      registry.use(SessionTag.live(teardowns: teardowns))
    }
  }
}

/// A tree whose request scope is defined for session branches only, as a server that serves only
/// signed-in users defines it: a request without a session cannot be branched.
///
/// - Parameter teardowns: Where the teardowns are recorded.
public func sessionsOnlyTree(teardowns: Teardowns = Teardowns()) -> Features {
  FeaturesRoot { registry in
    registry.use(Counter.live())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(SessionTag.live(teardowns: teardowns))
      registry.defineScope(RequestScope.self) { registry in
        registry.use(RequestTag.live(teardowns: teardowns))
      }
    }
  }
}
