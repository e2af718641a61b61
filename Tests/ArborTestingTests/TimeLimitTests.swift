import ArborTestSupport
import ArborTesting
import Testing

/// Time limits (a start's timeout, a registration's `startTimeLimit` and `teardownTimeLimit`) and
/// load durations run on the root's clock: a test clock drives them, and nothing here waits on the
/// wall clock.
@Suite struct TimeLimitTests {
  struct Pool: CacheableFeature {
    var name: String
    static var placeholder: Pool { Pool(name: "placeholder") }
  }

  struct Cache: CacheableFeature {
    var name: String
    static var placeholder: Cache { Cache(name: "placeholder") }
  }

  @Test func aHungEagerLoadFailsTheStartWhenTheRootsClockPassesItsLimit() async throws {
    let clock = TestClock()
    let gate = Gate()
    defer { gate.open() }
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()") { (_: Features) async -> Pool in
          await gate.wait()
          return Pool(name: "late")
        }, eager: true, startTimeLimit: .milliseconds(200), file: "App/Main.swift", line: 14)
    }
    let start = Task { try await root.start(file: "App/Main.swift", line: 20) }
    #expect(await eventually { clock.sleeperCount == 1 })
    clock.advance(by: .milliseconds(199))
    #expect(clock.sleeperCount == 1)  // the limit has not passed: the start still waits
    clock.advance(by: .milliseconds(1))
    let error = await #expect(throws: FeaturesStartFailed.self) { try await start.value }
    #expect(
      error.map { String(reflecting: $0) } == """
        FeaturesStartFailed: could not start Root: 1 of 1 step failed
        ├─ requested at: App/Main.swift:20
        ├─ scope: Root
        ├─ fix: fix each cause below, then start a new tree: this one is closed,
        │       and what had started is torn down
        └─ cause: FeaturesStartTimedOut: Pool did not load within 200 ms
           ├─ path: start() → Pool
           ├─ implementation: Pool.live() registered at App/Main.swift:14
           └─ fix: find what Pool.live() waits for, or give it a longer startTimeLimit
        """)
  }

  @Test func theStartsTimeoutOnTheRootsClockBoundsBeforeServingWork() async throws {
    let clock = TestClock()
    let gate = Gate()
    defer { gate.open() }
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(.cacheable { (_: Features) in Cache(name: "quick") }, eager: true)
      registry.beforeServing(file: "App/Main.swift", line: 30) { _ in await gate.wait() }
    }
    let start = Task { try await root.start(timeout: .seconds(5)) }
    #expect(await eventually { clock.sleeperCount == 1 })
    clock.advance(by: .seconds(5))
    let error = await #expect(throws: FeaturesStartFailed.self) { try await start.value }
    #expect(error?.diagnostic.causes.map(\.kind) == ["FeaturesStartTimedOut"])
    #expect(
      error?.diagnostic.causes.first?.message
        == "the work before serving named at App/Main.swift:30 did not end within 5 s")
  }

  @Test func aHungTeardownIsReportedAndSkippedWhenTheRootsClockPassesItsLimit() async throws {
    let clock = TestClock()
    let gate = Gate()
    defer { gate.open() }
    let log = Lock<[String]>.make([])
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable { (_: Features) in
          Cache(name: "cache")
        } teardown: { _ in
          log.withLock { $0.append("down cache") }
        })
      registry.use(
        .cacheable { (_: Features) in
          Pool(name: "db")
        } teardown: { _ in
          await gate.wait()
        },
        teardownTimeLimit: .seconds(2))
    }
    _ = try await root.instance(of: Cache.self)
    _ = try await root.instance(of: Pool.self)
    let close = Task { try await root.close() }
    #expect(await eventually { clock.sleeperCount == 1 })
    #expect(log.withLock { $0 }.isEmpty)  // the pool, loaded last, is torn down first
    clock.advance(by: .seconds(2))
    let error = await #expect(throws: TeardownFailed.self) { try await close.value }
    #expect(log.withLock { $0 } == ["down cache"])
    #expect(error?.failures.map { "\($0.feature)" } == ["Pool"])
    #expect((error?.failures.first?.cause as? TeardownTimedOut)?.limit == .seconds(2))
    #expect(error?.diagnostic.causes.first?.message == "the teardown did not end within 2 s")
  }

  @Test func loadDurationsAreMeasuredOnTheRootsClock() throws {
    let clock = TestClock()
    let profile = LoadProfile()
    let root = FeaturesRoot(observer: profile, clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()") { (_: Features) in
          clock.advance(by: .milliseconds(2))
          return Cache(name: "cache")
        })
      registry.use(
        .cacheable(implementation: "live()") { (features: Features) in
          clock.advance(by: .milliseconds(5))
          return Pool(name: try features.instance(of: Cache.self).name)
        })
    }
    _ = try root.instance(of: Pool.self)
    #expect(profile.loads.map(\.duration) == [.milliseconds(2), .milliseconds(7)])
    #expect(
      profile.report() == """
        2 loads, 7.00 ms at the top
        └─ Pool.live() in Root: 7.00 ms
           └─ Cache.live() in Root: 2.00 ms
        """)
  }
}
