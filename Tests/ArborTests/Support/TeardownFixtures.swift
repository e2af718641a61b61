import Arbor

/// Cacheables that hold "resources": each test's loaders log what they open and what their
/// teardowns close, in one `Collected<String>`.
struct Pool: CacheableFeature {
  var name: String
  static var placeholder: Pool { Pool(name: "placeholder") }
}

struct Cache: CacheableFeature {
  var name: String
  static var placeholder: Cache { Cache(name: "placeholder") }
}

struct Journal: CacheableFeature {
  var name: String
  static var placeholder: Journal { Journal(name: "placeholder") }
}

/// A multiton: one connection per id.
struct Connection: CacheableFeature {
  typealias Context = Int
  var id: Int
  static var placeholder: Connection { Connection(id: -1) }
}

struct Closed: Error, CustomStringConvertible {
  var name: String
  var description: String { "\(name) would not close" }
}

/// A cacheable loader of `make`'s feature whose teardown logs `down <name>`, or throws `Closed`
/// when `throwing`.
func resource<F: CacheableFeature>(
  _ log: Collected<String>, _ make: @escaping @Sendable () -> F, named name: String, throwing: Bool = false,
  file: StaticString = #fileID, line: UInt = #line
) -> FeatureLoader where F.Context == NoContext {
  .cacheable(implementation: "live()", file: file, line: line) { _ in
    log.append("up \(name)")
    return make()
  } teardown: { _ in
    log.append("down \(name)")
    if throwing { throw Closed(name: name) }
  }
}

/// An async cacheable loader, otherwise as ``resource(_:_:named:throwing:file:line:)``.
func asyncResource<F: CacheableFeature>(
  _ log: Collected<String>, _ make: @escaping @Sendable () -> F, named name: String,
  file: StaticString = #fileID, line: UInt = #line
) -> FeatureLoader where F.Context == NoContext {
  .cacheable(implementation: "live()", file: file, line: line) { _ async throws in
    await Task.yield()
    log.append("up \(name)")
    return make()
  } teardown: { _ in
    await Task.yield()
    log.append("down \(name)")
  }
}

/// The multiton loader: `up connection <id>`, `down connection <id>`.
func connections(_ log: Collected<String>) -> FeatureLoader {
  .cacheable { (id: Int, _) in
    log.append("up connection \(id)")
    return Connection(id: id)
  } teardown: { connection in
    log.append("down connection \(connection.id)")
  }
}

/// A scope below sessions, for nested branches.
enum TaskScope: FeaturesScope { typealias Context = String }
