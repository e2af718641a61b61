// The code samples of Sources/Core/Arbor.docc/Concurrency.md, compiled and run by the test suite. Every ```swift block
// of that guide must appear verbatim in this file (DocsSamplesTests checks it).
import Arbor
import Testing

// sample: async loader
struct Database: CacheableFeature {
  var query: @Sendable (String) async throws -> [String]
  static var placeholder: Database { Database(query: unimplemented("Database.query")) }
}

extension Database {
  static func connected() -> FeatureLoader {
    .cacheable { features async throws in
      let connection = try await Connection.open()
      return Database(query: { sql in try await connection.run(sql) })
    }
  }
}
// end

/// A stand-in for a real database connection.
struct Connection: Sendable {
  static func open() async throws -> Connection {
    try await Task.sleep(for: .milliseconds(1))
    return Connection()
  }
  func run(_ sql: String) async throws -> [String] { [sql] }
}

// sample: async disposable, cancelled
struct Report: DisposableFeature {
  var text: String
  static var placeholder: Report { Report(text: "") }
}

extension Report {
  static func rendered() -> FeatureLoader {
    .disposable { features async throws in
      try await Task.sleep(for: .seconds(30))  // throws CancellationError once the requester is cancelled
      return Report(text: "monthly report")
    }
  }
}
// end

enum RequestScope: FeaturesScope { typealias Context = Int }

// sample: task-local features
func handleRequest(id: Int, in session: Features) async throws -> [String] {
  let request = try session.branch(RequestScope.self, context: id)
  return try await request.withCurrent {
    try await loadOrders()  // no Features parameter on the way down
  }
}

func loadOrders() async throws -> [String] {
  let database: Database = try await Features.current().instance()
  let request = try Features.current().context(for: RequestScope.self)
  return try await database.query("orders of request \(request)")
}
// end

// sample: property wrapper
struct OrdersHandler {
  @Resolved var database: Database  // from Features.current() where the handler is made

  func orders() async throws -> [String] {
    try await $database.instance().query("orders")
  }
}

final class SessionController {
  @Resolved var greeter: Greeter

  init(features: Features) {
    _greeter = Resolved(in: features)  // from the features this controller holds
  }
}
// end

// sample: top-level code calls an async function
/// What `main.swift` starts: an async function, where `try await` makes the async request.
func start(_ root: Features) async throws -> [String] {
  let database: Database = try await root.instance()
  return try await database.query("select 1")
}
// end

@Suite struct ConcurrencySamplesTests {
  let root = FeaturesRoot { registry in
    registry.use(Database.connected())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Greeter.live())
      registry.defineScope(RequestScope.self) { _ in }
    }
    registry.use(Printer.console())
    registry.use(Report.rendered())
  }

  @Test func samplesRun() async throws {
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    // The property wrapper first, on a fresh tree: it must run the async loader itself.
    #expect(try await session.withCurrent { try await OrdersHandler().orders() } == ["orders"])
    #expect(try await handleRequest(id: 7, in: session) == ["orders of request 7"])
    let orders = try await session.withCurrent { try await OrdersHandler().orders() }
    #expect(orders == ["orders"])
    let controller = SessionController(features: session)
    try controller.greeter.greet()
  }

  @Test func theAsyncFunctionThatMainStartsRunsTheAsyncLoader() async throws {
    #expect(try await start(root) == ["select 1"])
  }

  @Test func cancellingTheRequesterOfAnAsyncDisposableThrowsCancellationErrorAsItIs() async throws {
    let request = Task { try await root.instance(of: Report.self) }
    request.cancel()
    await #expect(throws: CancellationError.self) { try await request.value }
  }
}
