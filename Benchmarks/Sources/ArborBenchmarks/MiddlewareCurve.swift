import Arbor
import ArborHummingbird
import Hummingbird
import Logging
import Synchronization

/// `middleware`: what `FeaturesMiddleware` adds to a request: branch a request scope with a
/// context built from the request (below a session kept in `KeyedBranches`, or from the root), put
/// the branch in the request context, make it the task's current features, close it when the
/// handler returns. Each point runs the whole middleware chain in one task, as Hummingbird's
/// responder calls it, with no network: the time is the chain's, not the server's.
///
/// The points without a handler are the middleware's overhead, with two of its parts timed alone
/// (`withBranch`: branch and close; `KeyedBranches.withBranch`: a session's lease); the last is a
/// handler that resolves what a request of the example server resolves (a request logger and the
/// user's todos, which read the request's and the session's contexts), against the same handler
/// wired by hand (a token looked up in a table under a lock, the same structs built in place).
enum MiddlewareCurve {
  struct Info: Sendable, Hashable {
    var id: String
    var path: String
  }
  struct User: Sendable, Hashable {
    var name: String
  }
  enum RequestScope: FeaturesScope { typealias Context = Info }
  enum SessionScope: FeaturesScope { typealias Context = User }

  /// The server's logger, at the root.
  struct ServerLogger: StaticFeature {
    var logger: Logger
    static var placeholder: ServerLogger { ServerLogger(logger: Logger(label: "placeholder")) }
  }

  /// The request's logger, with its id and user: one per request branch.
  struct RequestLogger: CacheableFeature {
    var logger: Logger
    static var placeholder: RequestLogger { RequestLogger(logger: Logger(label: "placeholder")) }
  }

  /// The user's todos for one request: one per request branch.
  struct UserTodos: CacheableFeature {
    var count: @Sendable () -> Int
    static var placeholder: UserTodos { UserTodos(count: { 0 }) }
  }

  /// A request context whose source is only a logger: no channel is needed without a network.
  struct LoggerSource: RequestContextSource {
    var logger: Logger
  }

  struct Context: FeaturesRequestContext {
    typealias Source = LoggerSource
    var coreContext: CoreRequestContextStorage
    var requestFeatures = RequestFeatures()
    init(source: LoggerSource) { coreContext = .init(source: source) }
  }

  static let logger = Logger(label: "benchmark") { _ in SwiftLogNoOpLogHandler() }

  static func tree() -> Features {
    FeaturesRoot { registry in
      registry.use(ServerLogger(logger: logger))
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { registry in
          registry.use(
            .cacheable { features in
              var logger = try features.instance(of: ServerLogger.self).logger
              logger[metadataKey: "request.id"] = "\(try features.context(for: RequestScope.self).id)"
              logger[metadataKey: "user"] = "\(try features.context(for: SessionScope.self).name)"
              return RequestLogger(logger: logger)
            })
          registry.use(
            .cacheable { features in
              let user = try features.context(for: SessionScope.self).name
              let logger = try features.instance(of: RequestLogger.self).logger
              return UserTodos(count: {
                logger.debug("listed todos")
                return user.count
              })
            })
        }
      }
      // Requests branched from the root (the root-only point) carry no session.
      registry.defineScope(RequestScope.self) { _ in }
    }
  }

  static func run(_ settings: Settings) -> Curve {
    let requests = max(1, settings.count(1_000_000) / settings.samples)
    let samples = settings.samples
    let figures = runAsync { await measure(requests: requests, samples: samples) }
    var curve = Curve(id: "middleware")
    curve.points.append(
      Curve.Point(label: "no middleware, empty handler (ns)", unit: "ns", arbor: figures.bare))
    curve.points.append(
      Curve.Point(label: "part: `withBranch` of a request scope, alone (ns)", unit: "ns", arbor: figures.withBranch))
    curve.points.append(
      Curve.Point(
        label: "part: `KeyedBranches.withBranch`, a kept session, alone (ns)", unit: "ns", arbor: figures.lease))
    curve.points.append(
      Curve.Point(label: "FeaturesMiddleware from the root, empty handler (ns)", unit: "ns", arbor: figures.root))
    curve.points.append(
      Curve.Point(
        label: "FeaturesMiddleware below a kept session, empty handler (ns)", unit: "ns", arbor: figures.session))
    curve.points.append(
      Curve.Point(
        label: "below a kept session, handler resolves logger + todos (ns)", unit: "ns", arbor: figures.resolving,
        baseline: figures.handWired))
    curve.points.append(
      Curve.Point(
        label: "the same, `setsCurrentFeatures: false` (ns)", unit: "ns", arbor: figures.resolvingWithoutCurrent,
        baseline: figures.handWired))
    curve.notes.append(
      "middleware overhead: \(format(figures.root - figures.bare, unit: "ns")) ns from the root, "
        + "\(format(figures.session - figures.bare, unit: "ns")) ns below a kept session")
    curve.notes.append(
      "`setsCurrentFeatures: false` runs in a process where another middleware sets current features: its "
        + "loads still read the task-local (in a process where nothing sets them, they do not)")
    curve.ratios.append(
      Curve.Ratio(title: "a request's features, Arbor ÷ hand-wired", value: figures.resolving / figures.handWired))
    curve.ratios.append(
      Curve.Ratio(
        title: "a request's features without current features, Arbor ÷ hand-wired",
        value: figures.resolvingWithoutCurrent / figures.handWired))
    return curve
  }

  typealias Next = (Request, Context) async throws -> Response

  static func measure(requests: Int, samples: Int) async -> (
    bare: Double, withBranch: Double, lease: Double, root: Double, session: Double, resolving: Double,
    resolvingWithoutCurrent: Double, handWired: Double
  ) {
    let root = tree()
    let sessions = KeyedBranches(SessionScope.self, of: root) { (token: String) in User(name: "ann") }
    let fromRoot = FeaturesMiddleware<Context, RequestScope>(root: root, scope: RequestScope.self) { request, context in
      Info(id: "1", path: request.uri.path)
    }
    let fromSession = FeaturesMiddleware<Context, RequestScope>(
      sessions: sessions, scope: RequestScope.self, key: { _, _ in "ann-token" }
    ) { request, context in Info(id: "1", path: request.uri.path) }
    let withoutCurrent = FeaturesMiddleware<Context, RequestScope>(
      sessions: sessions, scope: RequestScope.self, key: { _, _ in "ann-token" }, setsCurrentFeatures: false
    ) { request, context in Info(id: "1", path: request.uri.path) }
    let request = Request(
      head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/api/todos"),
      body: RequestBody(buffer: ByteBuffer()))
    let context = Context(source: LoggerSource(logger: logger))
    let empty: Next = { _, _ in Response(status: .ok) }
    let resolve: Next = { _, context in
      let todos: UserTodos = try await context.instance()
      return Response(status: todos.count() == 3 ? .ok : .internalServerError)
    }
    let handWired = HandWired()
    let byHand: Next = { request, context in
      let user = try handWired.user(for: "ann-token")
      var logger = logger
      logger[metadataKey: "request.id"] = "1"
      logger[metadataKey: "user"] = "\(user)"
      let todos = UserTodos(count: { [logger] in
        logger.debug("listed todos")
        return user.count
      })
      return Response(status: todos.count() == 3 ? .ok : .internalServerError)
    }
    let info = Info(id: "1", path: "/api/todos")
    let runs: [(Int) async -> Void] = [
      { n in for _ in 0..<n { blackHole(try! await empty(request, context)) } },
      { n in for _ in 0..<n { try! await root.withBranch(RequestScope.self, context: info) { blackHole($0) } } },
      { n in for _ in 0..<n { try! await sessions.withBranch(for: "ann-token") { blackHole($0) } } },
      { n in for _ in 0..<n { blackHole(try! await fromRoot.handle(request, context: context, next: empty)) } },
      { n in for _ in 0..<n { blackHole(try! await fromSession.handle(request, context: context, next: empty)) } },
      { n in for _ in 0..<n { blackHole(try! await fromSession.handle(request, context: context, next: resolve)) } },
      { n in for _ in 0..<n { blackHole(try! await withoutCurrent.handle(request, context: context, next: resolve)) } },
      { n in for _ in 0..<n { blackHole(try! await byHand(request, context)) } },
    ]
    let check = try! await fromSession.handle(request, context: context, next: resolve)
    expect(check.status == .ok, "middleware: the handler resolved todos")
    let medians = await asyncMedians(samples: samples, operations: requests, runs)
    try! await sessions.close()
    try! await root.close()
    return (medians[0], medians[1], medians[2], medians[3], medians[4], medians[5], medians[6], medians[7])
  }

  /// The hand-wired server's state: users by token, and each user's request count, under a lock.
  final class HandWired: Sendable {
    private let requests = Mutex<[String: Int]>([:])
    private let tokens = ["ann-token": "ann"]

    func user(for token: String) throws -> String {
      guard let user = tokens[token] else { throw HTTPError(.unauthorized) }
      requests.withLock { $0[user, default: 0] += 1 }
      return user
    }
  }
}
