import Arbor
import ArborServiceLifecycleTesting

/// The signed-in user a session branch is about.
struct Session: Sendable, Hashable {
  var user: String
}

/// The scope of session branches.
enum SessionScope: FeaturesScope { typealias Context = Session }

/// What was torn down, in order (`request /path 3`, `session ann`, `root`).
typealias Teardowns = RecordedEvents

/// One instance for the whole tree, torn down when the root closes.
struct Connection: CacheableFeature {
  var open: Bool
  static var placeholder: Connection { Connection(open: false) }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { _ in
      Connection(open: true)
    } teardown: { _ in
      teardowns.append("root")
    }
  }
}

/// One instance per session branch, torn down as `session <user>`.
struct SessionTag: CacheableFeature {
  var user: String
  static var placeholder: SessionTag { SessionTag(user: "") }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { features in
      SessionTag(user: try features.context(for: SessionScope.self).user)
    } teardown: { tag in
      teardowns.append("session \(tag.user)")
    }
  }
}

/// A feature nobody registers: requesting it is a wiring mistake.
struct Unregistered: CacheableFeature {
  var value: Int
  static var placeholder: Unregistered { Unregistered(value: 0) }
}

/// A session feature whose loader requests a feature nobody registered.
struct Audit: CacheableFeature {
  var value: Int
  static var placeholder: Audit { Audit(value: 0) }

  static func live() -> FeatureLoader {
    .cacheable { features in Audit(value: try features.instance(of: Unregistered.self).value) }
  }
}

/// A connection at the root and a tag per session, each torn down into `teardowns`.
func testTree(teardowns: Teardowns = Teardowns()) -> Features {
  FeaturesRoot { registry in
    registry.use(Connection.live(teardowns: teardowns))
    registry.defineScope(SessionScope.self) { registry in
      registry.use(SessionTag.live(teardowns: teardowns))
    }
  }
}
