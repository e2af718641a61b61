import Arbor
import Synchronization

enum RequestScope: FeaturesScope { typealias Context = Int }
enum AdminScope: FeaturesScope {}

/// A cacheable that says whose it is: the session (and request) it was loaded for.
struct Profile: CacheableFeature {
  var user: @Sendable () -> String
  static var placeholder: Profile { Profile(user: unimplemented("Profile.user", placeholder: "")) }
}

/// A cacheable whose instances say which implementation and which load made them.
struct Counter: CacheableFeature {
  var name: String
  var serial: Int
  static var placeholder: Counter { Counter(name: "placeholder", serial: -1) }
}

/// A second cacheable, for tests that load two different features at once.
struct Other: CacheableFeature {
  var serial: Int
  static var placeholder: Other { Other(serial: -1) }
}

/// A multiton: one instance per account id and branch.
struct Account: CacheableFeature {
  typealias Context = Int
  var id: Int
  var serial: Int
  static var placeholder: Account { Account(id: -1, serial: -1) }
}

/// A disposable with a context.
struct Tagged: DisposableFeature {
  typealias Context = String
  var tag: String
  static var placeholder: Tagged { Tagged(tag: "") }
}

/// Features for cycles and chains: each loader is set by the test.
struct Alpha: CacheableFeature {
  static var placeholder: Alpha { Alpha() }
}
struct Beta: CacheableFeature {
  static var placeholder: Beta { Beta() }
}
struct Gamma: DisposableFeature {
  static var placeholder: Gamma { Gamma() }
}

/// A member of every shape `unimplemented` must type-check for, without annotations.
struct Shapes: DisposableFeature {
  var void: @Sendable () -> Void
  var binary: @Sendable (Int, String) -> Void
  var throwing: @Sendable () throws -> Void
  var mapping: @Sendable (Int) throws -> String
  var value: @Sendable () -> Int
  static var placeholder: Shapes {
    Shapes(
      void: unimplemented("Shapes.void"),
      binary: unimplemented("Shapes.binary"),
      throwing: unimplemented("Shapes.throwing"),
      mapping: unimplemented("Shapes.mapping"),
      value: unimplemented("Shapes.value", placeholder: 7)
    )
  }
}

/// Counts how often something ran, from any thread.
final class Tally: Sendable {
  private let count = Atomic<Int>(0)
  /// Adds one and returns the new count.
  @discardableResult func next() -> Int { count.add(1, ordering: .relaxed).newValue }
  var value: Int { count.load(ordering: .relaxed) }
}

/// Counts live instances of a class, to prove that branches free what they cached.
final class LiveObjects: Sendable {
  private let count = Atomic<Int>(0)
  var value: Int { count.load(ordering: .relaxed) }

  final class Object: Sendable {
    let owner: LiveObjects
    init(_ owner: LiveObjects) {
      self.owner = owner
      owner.count.add(1, ordering: .relaxed)
    }
    deinit { owner.count.subtract(1, ordering: .relaxed) }
  }
}

struct Boom: Error, CustomStringConvertible {
  var description: String { "boom" }
}
