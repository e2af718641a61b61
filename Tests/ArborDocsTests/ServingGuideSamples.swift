// The code samples of Sources/Core/Arbor.docc/ServingAnApp.md, compiled and run by the test suite.
// Every ```swift block of that guide must appear verbatim in this file or in the integrations'
// tests (DocsSamplesTests checks it). The library's code is written `public`, as it is in a
// library of its own; here it shares a module with the tests.
import Arbor
import Foundation
import Synchronization
import Testing

// sample: the scopes of a library
/// Who a session branch is for: the signed-in user, and the token they signed in with.
public struct SignedIn: Sendable, Hashable {
  public var user: String
  public var token: String

  public init(user: String, token: String) {
    self.user = user
    self.token = token
  }
}

/// What a request branch carries.
public struct APICall: Sendable, Hashable {
  public var id: String
  public var path: String

  public init(id: String, path: String) {
    self.id = id
    self.path = path
  }
}

public enum SignedInScope: FeaturesScope { public typealias Context = SignedIn }
public enum APICallScope: FeaturesScope { public typealias Context = APICall }
// end

// sample: a feature of a library
public struct Todos: CacheableFeature {
  public var list: @Sendable () async throws -> [String]
  public var add: @Sendable (_ title: String) async throws -> Void

  // Swift gives a struct of another module no memberwise initialiser: the app's code and its
  // tests build a `Todos` with this one.
  public init(
    list: @escaping @Sendable () async throws -> [String],
    add: @escaping @Sendable (_ title: String) async throws -> Void
  ) {
    self.list = list
    self.add = add
  }

  public static var placeholder: Todos {
    Todos(list: unimplemented("Todos.list"), add: unimplemented("Todos.add"))
  }
}

extension Todos {
  public static func live() -> FeatureLoader {
    .cacheable { features in
      let session = try features.context(for: SignedInScope.self)
      let store: TodoStore = try features.instance()
      return Todos(
        list: { try await store.todos(session.user) },
        add: { title in try await store.add(title, session.user) })
    }
  }
}
// end

// sample: an eager resource
public struct TodoStore: CacheableFeature {
  public var user: @Sendable (_ token: String) async throws -> String?
  public var todos: @Sendable (_ user: String) async throws -> [String]
  public var add: @Sendable (_ title: String, _ user: String) async throws -> Void
  public var close: @Sendable () async -> Void

  public init(
    user: @escaping @Sendable (_ token: String) async throws -> String?,
    todos: @escaping @Sendable (_ user: String) async throws -> [String],
    add: @escaping @Sendable (_ title: String, _ user: String) async throws -> Void,
    close: @escaping @Sendable () async -> Void
  ) {
    self.user = user
    self.todos = todos
    self.add = add
    self.close = close
  }

  public static var placeholder: TodoStore {
    TodoStore(
      user: unimplemented("TodoStore.user"), todos: unimplemented("TodoStore.todos"),
      add: unimplemented("TodoStore.add"), close: unimplemented("TodoStore.close"))
  }
}

extension TodoStore {
  public static func connected() -> FeatureLoader {
    .cacheable { features async throws in
      // Validation runs this loader, then the teardown of what it returns, and keeps nothing:
      // it gets a store that opens no connection.
      if features.isValidating { return TodoStore(database: nil) }
      return TodoStore(database: try await TodoDatabase.connect())
    } teardown: { store in
      await store.close()
    }
  }
}
// end

// sample: a disposable that reads the session's context
/// A log line per request, tagged with the signed-in user.
struct RequestLog: DisposableFeature {
  var write: @Sendable (String) -> Void
  static var placeholder: RequestLog { RequestLog(write: unimplemented("RequestLog.write")) }
}

extension RequestLog {
  static func tagged() -> FeatureLoader {
    .disposable { features in
      let session = try features.context(for: SignedInScope.self)
      return RequestLog(write: { line in TodoDatabase.log("[\(session.user)] \(line)") })
    }
  }
}
// end

// sample: the app's root
func servingRoot() -> Features {
  FeaturesRoot { registry in
    registry.use(TodoStore.connected(), eager: true)  // opened by start(), before serving
    registry.defineScope(SignedInScope.self) { registry in
      registry.use(Todos.live())
      registry.use(RequestLog.tagged())  // it reads the session's context: registered in its scope
      registry.defineScope(APICallScope.self) { _ in }  // every request is branched below a session
    }
  }
}
// end

// sample: sessions by key
func serveTwoRequestsAndShutDown(root: Features) async throws -> [String] {
  try await root.start()
  let sessions = KeyedBranches(SignedInScope.self, of: root, idleTime: .seconds(900), maximumCount: 10_000) {
    (token: String) in
    // Made on the token's first request; the next requests with it reuse the branch.
    guard let user = try await root.instance(of: TodoStore.self).user(token) else { throw SignInRequired() }
    return SignedIn(user: user, token: token)
  }
  for id in ["1", "2"] {
    try await sessions.withBranch(for: "ann-token") { session in
      try await session.withBranch(APICallScope.self, context: APICall(id: id, path: "/todos")) { call in
        try await call.instance(of: RequestLog.self).write("adds a todo")
        try await call.instance(of: Todos.self).add("todo \(id)")
      }
    }
  }
  let todos = try await sessions.withBranch(for: "ann-token") { session in
    try await session.instance(of: Todos.self).list()
  }
  try await sessions.evict("ann-token")  // on sign-out: the session's branch closes now
  await sessions.evictIdle()  // on a timer (IdleBranchesEviction in a server): idle sessions close
  try await sessions.close()  // on shutdown: every session closes, then no request is served
  try await root.close()
  return todos
}
// end

// sample: session state in a shared store
/// What a session holds that every instance of the server must see.
public struct SessionState: Codable, Sendable, Hashable {
  public var user: String
  public var cart: [String]

  public init(user: String, cart: [String]) {
    self.user = user
    self.cart = cart
  }
}

/// A client of a store that every instance of the server shares (a Valkey or PostgreSQL client,
/// say): one for the whole tree, registered at the root.
public struct SessionStore: CacheableFeature {
  public var read: @Sendable (_ token: String) async throws -> SessionState?
  public var write: @Sendable (_ token: String, _ state: SessionState) async throws -> Void
  public var remove: @Sendable (_ token: String) async throws -> Void

  public init(
    read: @escaping @Sendable (_ token: String) async throws -> SessionState?,
    write: @escaping @Sendable (_ token: String, _ state: SessionState) async throws -> Void,
    remove: @escaping @Sendable (_ token: String) async throws -> Void
  ) {
    self.read = read
    self.write = write
    self.remove = remove
  }

  public static var placeholder: SessionStore {
    SessionStore(
      read: unimplemented("SessionStore.read"), write: unimplemented("SessionStore.write"),
      remove: unimplemented("SessionStore.remove"))
  }
}

/// The signed-in user's cart: read from the store and written back to it on every change, so
/// that whichever instance serves the user's next request sees it.
public struct Cart: CacheableFeature {
  public var items: @Sendable () async throws -> [String]
  public var add: @Sendable (_ item: String) async throws -> Void

  public init(
    items: @escaping @Sendable () async throws -> [String],
    add: @escaping @Sendable (_ item: String) async throws -> Void
  ) {
    self.items = items
    self.add = add
  }

  public static var placeholder: Cart { Cart(items: unimplemented("Cart.items"), add: unimplemented("Cart.add")) }
}

extension Cart {
  public static func shared() -> FeatureLoader {
    .cacheable { features in
      let token = try features.context(for: SignedInScope.self).token
      let store: SessionStore = try features.instance()
      return Cart(
        items: { try await store.read(token)?.cart ?? [] },
        add: { item in
          guard var state = try await store.read(token) else { throw SignInRequired() }
          state.cart.append(item)
          try await store.write(token, state)
        })
    }
  }
}

/// Sessions made from the shared store: a session branch is a cache of the stored state, which
/// any instance can make again.
func sharedSessions(of root: Features) -> KeyedBranches<String, SignedInScope> {
  KeyedBranches(SignedInScope.self, of: root, idleTime: .seconds(300)) { (token: String) in
    guard let state = try await root.instance(of: SessionStore.self).read(token) else { throw SignInRequired() }
    return SignedIn(user: state.user, token: token)
  }
}
// end

/// What the sessions' context closure throws for a token nobody signed in with: a server maps it
/// to 401.
struct SignInRequired: Error {}

/// The samples' database: in memory, with a log of what it was asked.
actor TodoDatabase {
  private var todos: [String: [String]] = [:]
  private static let lines = Mutex<[String]>([])

  static func connect() async throws -> TodoDatabase {
    log("connect")
    return TodoDatabase()
  }

  static func log(_ line: String) { lines.withLock { $0.append(line) } }
  static var logged: [String] { lines.withLock { $0 } }

  func user(_ token: String) -> String? { token == "ann-token" ? "ann" : nil }
  func todos(_ user: String) -> [String] { todos[user] ?? [] }
  func add(_ title: String, _ user: String) { todos[user, default: []].append(title) }
  func close() { Self.log("close") }
}

extension TodoStore {
  /// A store on `database`, or one that opens nothing and knows nobody when `database` is `nil`.
  init(database: TodoDatabase?) {
    self.init(
      user: { token in await database?.user(token) },
      todos: { user in await database?.todos(user) ?? [] },
      add: { title, user in await database?.add(title, user) },
      close: { await database?.close() })
  }
}

/// A session store in memory: what a test, or a single process, uses.
extension SessionStore {
  static func inMemory(_ sessions: [String: SessionState]) -> SessionStore {
    let states = Mutex(sessions)
    return SessionStore(
      read: { token in states.withLock { $0[token] } },
      write: { token, state in states.withLock { $0[token] = state } },
      remove: { token in _ = states.withLock { $0.removeValue(forKey: token) } })
  }
}

@Suite(.serialized) struct ServingGuideTests {
  @Test func theAppServesASessionsRequestsThenClosesInOrder() async throws {
    let todos = try await serveTwoRequestsAndShutDown(root: servingRoot())
    #expect(todos == ["todo 1", "todo 2"])
    #expect(TodoDatabase.logged.contains("[ann] adds a todo"))
    #expect(TodoDatabase.logged.filter { $0 == "connect" }.count == TodoDatabase.logged.filter { $0 == "close" }.count)
  }

  @Test func theAppsTreeIsValidWithoutOpeningAConnection() async throws {
    let before = TodoDatabase.logged.filter { $0 == "connect" }.count
    let validation = await servingRoot().validate { contexts in
      contexts.use(SignedIn(user: "validation", token: "validation"), for: SignedInScope.self)
      contexts.use(APICall(id: "validation", path: "/"), for: APICallScope.self)
    }
    #expect(validation.problems.isEmpty)
    #expect(TodoDatabase.logged.filter { $0 == "connect" }.count == before)
  }

  @Test func aServerThatDeclaresRequestsWithoutASessionIsToldItsRequestScopeIsForSessionsOnly() async throws {
    let validation = await servingRoot().validate { contexts in
      contexts.use(SignedIn(user: "validation", token: "validation"), for: SignedInScope.self)
      contexts.use(APICall(id: "validation", path: "/"), for: APICallScope.self)
      contexts.branch(APICallScope.self, from: SignedInScope.self)
      contexts.branch(APICallScope.self, from: RootFeaturesScope.self)
    }
    #expect(validation.problems.map(\.diagnostic.kind) == ["FeaturesScopeUnchecked"])
    #expect(validation.problems.first?.diagnostic.message.contains("APICallScope") == true)
  }

  /// The guide's log entry of a failed start-up: the tree of a validation that finds no store, as
  /// `ServerMain` logs it, with the sites of a library and a server in place of this file's.
  @Test func theGuidesFailedStartUpIsWhatValidationReports() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SignedInScope.self) { registry in
        registry.use(Todos.live(), file: "Server/Root.swift", line: 7)
      }
    }
    let failure = await #expect(throws: FeaturesValidationFailed.self) {
      try await root.validate { contexts in
        contexts.use(SignedIn(user: "validation", token: "validation"), for: SignedInScope.self)
      }.check()
    }
    let logged = "server stopped: " + String(reflecting: try #require(failure))
    let line = try #require(logged.firstMatch(of: /ArborDocsTests\/ServingGuideSamples.swift:(\d+)/))
    let shown = logged.replacing(line.0, with: "TodoFeatures/Todos.swift:21")
    let guide = try String(
      contentsOf: ReadmeTests.root.appendingPathComponent("Sources/Core/Arbor.docc/ServingAnApp.md"), encoding: .utf8)
    #expect(guide.contains("```text\n\(shown)\n```"), "the guide shows another log entry than:\n\(shown)")
  }

  @Test func aCartWrittenThroughTheSharedStoreIsSeenByAnotherInstance() async throws {
    let store = SessionStore.inMemory(["ann-token": SessionState(user: "ann", cart: [])])
    // Two instances of the server: two roots, one store.
    func instance() -> Features {
      FeaturesRoot { registry in
        registry.use(.cacheable { (_: Features) in store })
        registry.defineScope(SignedInScope.self) { registry in registry.use(Cart.shared()) }
      }
    }
    let (first, second) = (instance(), instance())
    let firstSessions = sharedSessions(of: first)
    let secondSessions = sharedSessions(of: second)
    try await firstSessions.withBranch(for: "ann-token") { try await $0.instance(of: Cart.self).add("milk") }
    let seen = try await secondSessions.withBranch(for: "ann-token") { try await $0.instance(of: Cart.self).items() }
    #expect(seen == ["milk"])
    await #expect(throws: SignInRequired.self) { try await secondSessions.branch(for: "nobody") }
    try await firstSessions.close()
    try await secondSessions.close()
  }
}
