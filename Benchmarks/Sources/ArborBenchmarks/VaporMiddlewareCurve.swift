import Arbor
import ArborVapor
import Logging
import Vapor

/// `vapor-middleware`: the Vapor integration's `FeaturesMiddleware`, doing what the `middleware`
/// curve's Hummingbird case does: a request below a session kept in `KeyedBranches` whose handler
/// resolves a request logger and the user's todos (the same tree, the same features), against a
/// hand-written Vapor middleware and handler doing the same work without Arbor (a token looked up
/// in a table under a lock, the user kept in the request's storage, the same structs built in
/// place).
///
/// Each point calls the middleware's `respond(to:chainingTo:)` with the handler as an
/// `AsyncResponder`, in one task and with no network, as the Hummingbird curve calls its chain: the
/// time is the chain's, not the server's (nor that of Vapor's bridge from its future-based
/// responders, which is the same with or without Arbor).
enum VaporMiddlewareCurve {
  /// The CPU a request of the example server takes under its load test, in microseconds: the
  /// middleware's share of a server's request is given against this range.
  static let serverRequestMicroseconds = (low: 80.0, high: 300.0)

  /// Where the hand-written middleware keeps the request's user.
  struct UserKey: StorageKey {
    typealias Value = String
  }

  /// The hand-written middleware: the caller's user, looked up as the hand-wired Hummingbird
  /// handler looks it up, kept in the request's storage while the rest of the chain runs.
  struct HandWrittenMiddleware: AsyncMiddleware {
    let state: MiddlewareCurve.HandWired

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
      request.storage[UserKey.self] = try state.user(for: "ann-token")
      defer { request.storage[UserKey.self] = nil }
      return try await next.respond(to: request)
    }
  }

  static func run(_ settings: Settings) -> Curve {
    let requests = max(1, settings.count(1_000_000) / settings.samples)
    let samples = settings.samples
    let figures = runAsync { await measure(requests: requests, samples: samples) }
    // (label, Arbor, hand-written): the points of the Hummingbird curve that Vapor's request repeats.
    let points: [(String, Double, Double?)] = [
      ("no middleware, empty handler (ns)", figures.bare, nil),
      ("FeaturesMiddleware below a kept session, empty handler (ns)", figures.session, nil),
      ("below a kept session, handler resolves logger + todos (ns)", figures.resolving, figures.handWired),
      ("the same, `setsCurrentFeatures: false` (ns)", figures.resolvingWithoutCurrent, figures.handWired),
    ]
    var curve = Curve(id: "vapor-middleware")
    curve.points = points.map { Curve.Point(label: $0.0, unit: "ns", arbor: $0.1, baseline: $0.2) }
    let overhead = figures.session - figures.bare
    let share = figures.resolving - figures.handWired
    curve.notes.append(
      "middleware overhead: \(format(overhead, unit: "ns")) ns below a kept session; Arbor's whole share of a "
        + "request (resolving, less the same work by hand): \(format(share, unit: "ns")) ns")
    curve.notes.append(
      "of a server's request of \(Int(serverRequestMicroseconds.low)) to "
        + "\(Int(serverRequestMicroseconds.high)) µs of CPU (the example's load test): the middleware "
        + "\(percentRange(overhead)), Arbor's whole share \(percentRange(share))")
    curve.ratios.append(
      Curve.Ratio(
        title: "a Vapor request's features, Arbor ÷ hand-written", value: figures.resolving / figures.handWired))
    curve.ratios.append(
      Curve.Ratio(
        title: "a Vapor request's features without current features, Arbor ÷ hand-written",
        value: figures.resolvingWithoutCurrent / figures.handWired))
    return curve
  }

  /// "0.4 % to 1.5 %": `nanoseconds` as a share of the server's request, at both ends of its range.
  static func percentRange(_ nanoseconds: Double) -> String {
    let high = nanoseconds / (serverRequestMicroseconds.low * 10)
    let low = nanoseconds / (serverRequestMicroseconds.high * 10)
    return String(format: "%.1f %% to %.1f %%", low, high)
  }

  static func measure(requests: Int, samples: Int) async -> (
    bare: Double, session: Double, resolving: Double, resolvingWithoutCurrent: Double, handWired: Double
  ) {
    typealias Info = MiddlewareCurve.Info
    let logger = MiddlewareCurve.logger
    let app = try! await Application.make(.testing)
    let root = MiddlewareCurve.tree()
    let sessions = KeyedBranches(MiddlewareCurve.SessionScope.self, of: root) { (token: String) in
      MiddlewareCurve.User(name: "ann")
    }
    let fromSession = FeaturesMiddleware(
      sessions: sessions, scope: MiddlewareCurve.RequestScope.self, key: { _ in "ann-token" }
    ) { request in Info(id: "1", path: request.url.path) }
    let withoutCurrent = FeaturesMiddleware(
      sessions: sessions, scope: MiddlewareCurve.RequestScope.self, key: { _ in "ann-token" },
      setsCurrentFeatures: false
    ) { request in Info(id: "1", path: request.url.path) }
    let request = Request(
      application: app, method: .GET, url: URI(path: "/api/todos"), logger: logger, on: app.eventLoopGroup.next())
    let empty = AsyncBasicResponder { _ in Response(status: .ok) }
    let resolve = AsyncBasicResponder { request in
      let todos = try await request.features.instance(of: MiddlewareCurve.UserTodos.self)
      return Response(status: todos.count() == 3 ? .ok : .internalServerError)
    }
    let handWritten = HandWrittenMiddleware(state: MiddlewareCurve.HandWired())
    let byHand = AsyncBasicResponder { request in
      guard let user = request.storage[UserKey.self] else { throw Abort(.unauthorized) }
      var logger = logger
      logger[metadataKey: "request.id"] = "1"
      logger[metadataKey: "user"] = "\(user)"
      let todos = MiddlewareCurve.UserTodos(count: { [logger] in
        logger.debug("listed todos")
        return user.count
      })
      return Response(status: todos.count() == 3 ? .ok : .internalServerError)
    }
    let runs: [(Int) async -> Void] = [
      { n in for _ in 0..<n { blackHole(try! await empty.respond(to: request)) } },
      { n in for _ in 0..<n { blackHole(try! await fromSession.respond(to: request, chainingTo: empty)) } },
      { n in for _ in 0..<n { blackHole(try! await fromSession.respond(to: request, chainingTo: resolve)) } },
      { n in for _ in 0..<n { blackHole(try! await withoutCurrent.respond(to: request, chainingTo: resolve)) } },
      { n in for _ in 0..<n { blackHole(try! await handWritten.respond(to: request, chainingTo: byHand)) } },
    ]
    let arbor = try! await fromSession.respond(to: request, chainingTo: resolve)
    expect(arbor.status == .ok, "vapor-middleware: the handler resolved todos through FeaturesMiddleware")
    expect((try? request.features) == nil, "vapor-middleware: the request's branch left its storage when closed")
    let byHandResponse = try! await handWritten.respond(to: request, chainingTo: byHand)
    expect(byHandResponse.status == .ok, "vapor-middleware: the hand-written handler found the user and its todos")
    expect(request.storage[UserKey.self] == nil, "vapor-middleware: the hand-written middleware cleared its user")
    let medians = await asyncMedians(samples: samples, operations: requests, runs)
    try! await sessions.close()
    try! await root.close()
    try! await app.asyncShutdown()
    return (medians[0], medians[1], medians[2], medians[3], medians[4])
  }
}
