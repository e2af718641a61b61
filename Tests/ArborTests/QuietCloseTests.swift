import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Dispatch
import Synchronization
import Testing

/// A branch with nothing to tear down and no open branch below it (a request's branch, most often)
/// closes at once: it never suspends, so a close called from an actor stays on it. It is closed
/// all the same: requests through it fail with the close's site, a second close sees its outcome,
/// and an observer is told.
@Suite struct QuietCloseTests {
  actor Requests {
    nonisolated let executor = CountingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Branches a session, reads its context, closes it; leases a kept one; returns the jobs the
    /// actor's executor ran meanwhile.
    func serve(_ root: Features) async throws -> Int {
      let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in Session(user: user) }
      _ = try await sessions.branch(for: "cy")  // made in a task of its own, once
      let before = executor.jobs.load(ordering: .relaxed)
      let kept = try await sessions.withBranch(for: "cy") { session in
        try await session.withBranch(TaskScope.self, context: "t") { try $0.context(for: SessionScope.self).user }
      }
      #expect(kept == "cy")
      let user = try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        try session.context(for: SessionScope.self).user
      }
      #expect(user == "ann")
      let session = try root.branch(SessionScope.self, context: Session(user: "bob"))
      _ = try await session.instance(of: Clock.self)
      try await session.close()
      return executor.jobs.load(ordering: .relaxed) - before
    }

    /// Closes `branch`; returns the jobs the actor's executor ran meanwhile.
    func close(_ branch: Features) async throws -> Int {
      let before = executor.jobs.load(ordering: .relaxed)
      try await branch.close()
      return executor.jobs.load(ordering: .relaxed) - before
    }
  }

  static func tree(_ log: Collected<String>, observer: (any FeaturesObserver)? = nil) -> Features {
    FeaturesRoot(observer: observer) { registry in
      registry.use(Clock(now: { 1 }))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Cache(name: "cache") }, named: "cache"))
        registry.use(.cacheable { _ in Journal(name: "journal") })
        registry.defineScope(TaskScope.self) { _ in }
      }
    }
  }

  @Test func aBranchWithNothingToTearDownClosesWithoutLeavingTheCallersActor() async throws {
    let root = Self.tree(Collected())
    let requests = Requests()
    #expect(try await requests.serve(root) == 0)
    try await root.close()
  }

  @Test func aQuietlyClosedBranchIsClosed() async throws {
    let root = Self.tree(Collected())
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Journal.self)  // cached here, without a teardown
    let closeLine = #line + 1
    try await session.close()
    try await session.close()  // a second close sees the first one's outcome
    let error = #expect(throws: FeaturesClosed.self) { try synchronously { try session.instance(of: Journal.self) } }
    #expect(
      String(reflecting: try #require(error)).contains(
        "├─ closed: Root › SessionScope(Session(user: \"ann\")), at ArborTests/QuietCloseTests.swift:\(closeLine)\n"))
    await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Journal.self) }
    #expect(throws: FeaturesClosed.self) { try session.branch(TaskScope.self, context: "t") }
    try await root.close()
  }

  @Test func aBranchThatCachedATeardownOrHasAnOpenChildStillClosesInOrder() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    let withTeardown = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await withTeardown.instance(of: Cache.self)
    try await withTeardown.close()
    #expect(log.all == ["up cache", "down cache"])

    let parent = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let child = try parent.branch(TaskScope.self, context: "t")
    _ = try await child.instance(of: Cache.self)  // cached in the child's session, `parent`
    try await parent.close()
    #expect(log.all == ["up cache", "down cache", "up cache", "down cache"])
    #expect(throws: FeaturesClosed.self) { try child.context(for: TaskScope.self) }
    try await root.close()
  }

  @Test func aBranchThatCachedContextsOfAMultitonWithoutTeardownClosesQuietlyAndRefusesThem() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { (id: Int, _) in Connection(id: id) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let cached = try synchronously { try session.instance(of: Connection.self, context: 1).id }
    let awaited = try await session.instance(of: Connection.self, context: 2).id
    #expect([cached, awaited] == [1, 2])
    let requests = Requests()
    #expect(try await requests.close(session) == 0)  // nothing to tear down: no suspension
    #expect(throws: FeaturesClosed.self) { try synchronously { try session.instance(of: Connection.self, context: 1) } }
    await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Connection.self, context: 3) }
    try await root.close()
  }

  @Test func anObserverIsToldOfAQuietClose() async throws {
    let recorder = CloseObserverTests.Recorder()
    let root = Self.tree(Collected(), observer: recorder)
    try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
      _ = try await session.instance(of: Journal.self)
    }
    #expect(recorder.events.withLock { $0 } == ["closed Root › SessionScope"])
    try await root.close()
  }

  @Test func quietClosesRacingRequestsFromManyTasksLeaveEveryBranchClosed() async throws {
    let root = Self.tree(Collected())
    let sessions = (0..<64).map { try! root.branch(SessionScope.self, context: Session(user: "u\($0)")) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for session in sessions {
        group.addTask { for _ in 0..<50 { _ = try? await session.instance(of: Journal.self) } }
        group.addTask { try await session.close() }
        group.addTask { try await session.close() }
      }
      try await group.waitForAll()
    }
    for session in sessions {
      await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Journal.self) }
      #expect(session.invariantViolations().isEmpty)
    }
    try await root.close()
  }
}
