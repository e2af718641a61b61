import Arbor
import ArborServiceLifecycleTesting
import Synchronization

/// Hands out increasing numbers, so a test can tell instances apart.
public struct Counter: StaticFeature {
  /// The next number.
  public var next: @Sendable () -> Int

  /// A counter handing out `next`'s numbers.
  public init(next: @escaping @Sendable () -> Int) { self.next = next }
  public static var placeholder: Counter { Counter(next: unimplemented("Counter.next", placeholder: 0)) }

  /// A counter starting at 1.
  public static func live() -> Counter {
    let value = Atomic<Int>(0)
    return Counter(next: { value.add(1, ordering: .relaxed).newValue })
  }
}

/// What was torn down, in order (`request /path 3`, `session ann`, `root`).
public typealias Teardowns = RecordedEvents

/// One instance per request branch: which number it got, and the request it was loaded for.
public struct RequestTag: CacheableFeature {
  /// Its number, from the ``Counter``.
  public var number: Int
  /// The request it was loaded for.
  public var info: RequestInfo

  /// A tag numbered `number` for `info`.
  public init(number: Int, info: RequestInfo) {
    self.number = number
    self.info = info
  }
  public static var placeholder: RequestTag { RequestTag(number: 0, info: RequestInfo(id: "", path: "")) }

  /// Loads a tag per request branch, torn down as `request <path> <number>`.
  public static func live(teardowns: Teardowns) -> FeatureLoader {
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
public struct SessionTag: CacheableFeature {
  /// Its number, from the ``Counter``.
  public var number: Int
  /// The session's user.
  public var user: String

  /// A tag numbered `number` for `user`'s session.
  public init(number: Int, user: String) {
    self.number = number
    self.user = user
  }
  public static var placeholder: SessionTag { SessionTag(number: 0, user: "") }

  /// Loads a tag per session branch, torn down as `session <user>`.
  public static func live(teardowns: Teardowns) -> FeatureLoader {
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
public struct Connection: CacheableFeature {
  /// Its number, from the ``Counter``.
  public var number: Int

  /// The connection numbered `number`.
  public init(number: Int) { self.number = number }

  public static var placeholder: Connection { Connection(number: 0) }

  /// Loads the connection, torn down as `root`.
  public static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { features in
      Connection(number: try features.instance(of: Counter.self).next())
    } teardown: { _ in
      teardowns.append("root")
    }
  }
}

/// A todo looked up by the id in the request's path: its loader throws what `notFound` makes for
/// any `/todos/` id but 1, on purpose (a server's 404).
public struct Todo: CacheableFeature {
  /// The todo's title.
  public var title: String

  /// A todo titled `title`.
  public init(title: String) { self.title = title }
  public static var placeholder: Todo { Todo(title: "") }

  /// Loads the todo of the request's path, or throws `notFound(path)`.
  public static func live(notFound: @escaping @Sendable (String) -> any Error) -> FeatureLoader {
    .cacheable { features in
      let path = try features.context(for: RequestScope.self).path
      guard !path.hasPrefix("/todos/") || path == "/todos/1" else { throw notFound(path) }
      return Todo(title: "buy milk")
    }
  }
}

/// What a todo's loader throws for a missing todo where no server's error is asked for.
public struct TodoNotFound: Error, Equatable {
  /// The path of the missing todo.
  public var path: String

  /// The error for the todo at `path`.
  public init(path: String) { self.path = path }
}

/// A feature nobody registers: requesting it is a wiring mistake.
public struct Unregistered: CacheableFeature {
  /// Never read.
  public var value: Int

  /// An instance holding `value`.
  public init(value: Int) { self.value = value }

  public static var placeholder: Unregistered { Unregistered(value: 0) }
}

/// A feature whose loader requests ``Unregistered``: a wiring mistake validation finds.
public struct Audit: CacheableFeature {
  /// Never read.
  public var value: Int

  /// An instance holding `value`.
  public init(value: Int) { self.value = value }

  public static var placeholder: Audit { Audit(value: 0) }

  /// A loader that fails with `FeatureUndefined` for ``Unregistered``.
  public static func live() -> FeatureLoader {
    .cacheable { features in Audit(value: try features.instance(of: Unregistered.self).value) }
  }
}
