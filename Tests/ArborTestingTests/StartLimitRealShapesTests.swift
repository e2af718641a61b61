import ArborTestSupport
import ArborTesting
import Testing

/// A start on the shapes real apps have: a pool whose load hangs past its start time limit,
/// with a repository that waits for it, and a close that races the start. Driven by a test clock and
/// gates: nothing here waits on the wall clock to decide.
@Suite struct StartLimitRealShapesTests {
  struct Pool: CacheableFeature {
    var name: String
    static var placeholder: Pool { Pool(name: "placeholder") }
  }

  struct Repository: CacheableFeature {
    var pool: String
    static var placeholder: Repository { Repository(pool: "placeholder") }
  }

  /// The outcome of `body`, run in a task of its own, or `nil` when it did not end within `seconds`:
  /// a call that hangs fails the test instead of hanging it.
  static func outcome<R: Sendable>(
    within seconds: Double = 30, _ body: @escaping @Sendable () async throws -> R
  ) async -> Result<R, any Error>? {
    let outcome = Lock<Result<R, any Error>?>.make(nil)
    Task {
      let result: Result<R, any Error>
      do { result = .success(try await body()) } catch { result = .failure(error) }
      outcome.withLock { $0 = result }
    }
    _ = await eventually(seconds: seconds) { outcome.withLock { $0 } != nil }
    return outcome.withLock { $0 }
  }

  static func error<E: Error>(_ type: E.Type, of outcome: Result<some Sendable, any Error>?) -> E? {
    guard case .failure(let error)? = outcome else { return nil }
    return error as? E
  }

  @Test func aLoadPastItsStartTimeLimitEndsTheStartAndNamesWhatWaitedForIt() async throws {
    let clock = TestClock()
    let gate = Gate()
    defer { gate.open() }
    let log = Lock<[String]>.make([])
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()") { (_: Features) async -> Pool in
          await gate.wait()
          return Pool(name: "db")
        } teardown: { _ in
          log.withLock { $0.append("pool down") }
        }, eager: true, startTimeLimit: .milliseconds(200), file: "App/Main.swift", line: 14)
      registry.use(
        .cacheable(implementation: "live()") { (features: Features) async throws -> Repository in
          Repository(pool: try await features.instance(of: Pool.self).name)
        }, eager: true, file: "App/Main.swift", line: 15)
    }
    let start = Task { try await root.start(file: "App/Main.swift", line: 20) }
    // The pool's limit is the only sleep: the repository has none, nor has the start.
    #expect(await eventually { clock.sleeperCount == 1 })
    clock.advance(by: .milliseconds(200))
    // The start ends while the pool's load still hangs.
    let outcome = await Self.outcome { try await start.value }
    #expect(!gate.isOpen)
    let error = try #require(Self.error(FeaturesStartFailed.self, of: outcome), "\(String(describing: outcome))")
    let header = """
      FeaturesStartFailed: could not start Root: 2 of 2 steps failed
      ├─ requested at: App/Main.swift:20
      ├─ scope: Root
      ├─ fix: fix each cause below, then start a new tree: this one is closed,
      │       and what had started is torn down
      """
    let pool = """
      cause: FeaturesStartTimedOut: Pool did not load within 200 ms
      ├─ path: start() → Pool
      ├─ implementation: Pool.live() registered at App/Main.swift:14
      └─ fix: find what Pool.live() waits for, or give it a longer startTimeLimit
      """
    let repository = """
      cause: FeaturesStartTimedOut: Repository was still loading when Pool passed its limit
      ├─ path: start() → Repository
      ├─ implementation: Repository.live() registered at App/Main.swift:15
      └─ fix: Repository.live() may wait for what passed its limit: fix that one first
      """
    // The steps are listed in the order they began, and the two began together.
    func rendering(_ first: String, _ last: String) -> String {
      let first = first.split(separator: "\n").enumerated().map { $0 == 0 ? "├─ \($1)" : "│  \($1)" }
      let last = last.split(separator: "\n").enumerated().map { $0 == 0 ? "└─ \($1)" : "   \($1)" }
      return ([header] + first + last).joined(separator: "\n")
    }
    let rendered = String(reflecting: error)
    #expect(
      [rendering(pool, repository), rendering(repository, pool)].contains(rendered),
      Comment(rawValue: rendered))

    // The tree is closed; once the pool's load ends, the close tears it down.
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Repository.self) }
    gate.open()
    #expect(await eventually { log.withLock { $0 } == ["pool down"] })
  }

  @Test func aStartThatACloseRacedThrowsFeaturesClosed() async throws {
    let gate = Gate()
    defer { gate.open() }
    let loading = Signal()
    let log = Lock<[String]>.make([])
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { (_: Features) async -> Pool in
          loading.raise()
          await gate.wait()
          return Pool(name: "db")
        } teardown: { _ in
          log.withLock { $0.append("pool down") }
        }, eager: true)
    }
    let start = Task { try await root.start(file: "App/Main.swift", line: 40) }
    #expect(await eventually { loading.isRaised })
    let close = Task { try await root.close(file: "App/Main.swift", line: 41) }
    // The close waits for the eager load in flight.
    #expect(await eventually { root.waits.closesForLoads == 1 })
    gate.open()
    let outcome = await Self.outcome { try await start.value }
    let error = Self.error(FeaturesClosed.self, of: outcome)
    #expect(error != nil, "\(String(describing: outcome))")
    #expect(
      error.map { String(reflecting: $0) } == """
        FeaturesClosed: cannot use start(): its branch is closed
        ├─ requested at: App/Main.swift:40
        ├─ scope: Root
        ├─ closed: Root, at App/Main.swift:41
        └─ fix: use start() before the branch is closed, or through a branch that is open
                (a new one, made with branch(...) from an open branch)
        """)
    // The close ends, having torn down what the start loaded.
    let closed = await Self.outcome { try await close.value }
    #expect(closed.map { (try? $0.get()) != nil } == true, "\(String(describing: closed))")
    #expect(log.withLock { $0 } == ["pool down"])
  }
}
