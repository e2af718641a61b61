import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// A refresh through a closed branch, or one below it, fails with `FeaturesClosed`; a refresh racing
/// a close ends, and every instance either is torn down once, by one of them, or stays cached.
@Suite(.timeLimit(.minutes(2))) struct RenewalClosedBranchTests {
  static func tree(_ ledger: RenewalLedger) -> Features {
    FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
        registry.use(ledger.cacheable(SessionKey.self))
        registry.use(ledger.multiton(Inbox.self) { _, features in _ = try features.instance(of: ApiClient.self) })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(ledger.cacheable(Uploader.self) { _ = try $0.instance(of: ApiClient.self) })
        }
      }
    }
  }

  @Test func aRefreshThroughAClosedBranchOrOneBelowItFailsAndRenewsNothing() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let task = try session.branch(TaskScope.self, context: "t1")
    _ = try synchronously { try task.instance(of: Uploader.self) }
    let closeLine = #line + 1
    try await session.close()
    let loggedBefore = ledger.log.all

    let refreshLine = #line + 1
    let closed = await #expect(throws: FeaturesClosed.self) { try await session.refresh(SessionKey.self) }
    #expect(closed?.diagnostic.message == "cannot refresh SessionKey: its branch is closed")
    #expect(
      closed?.diagnostic.renderedTree() == """
        FeaturesClosed: cannot refresh SessionKey: its branch is closed
        ├─ requested at: ArborTests/RenewalClosedBranchTests.swift:\(refreshLine)
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ closed: Root › SessionScope(Session(user: "ann")), at ArborTests/RenewalClosedBranchTests.swift:\(closeLine)
        └─ fix: refresh SessionKey before the branch is closed, or through a branch that is open
                (a new one, made with branch(...) from an open branch)
        """)
    // Below the closed branch, and for a feature cached in the open root.
    let below = await #expect(throws: FeaturesClosed.self) { try await task.refresh(Credential.self) }
    #expect(below?.diagnostic.message == "cannot refresh Credential: its branch is closed")
    let multiton = await #expect(throws: FeaturesClosed.self) { try await session.refresh(Inbox.self, context: 1) }
    #expect(multiton?.diagnostic.message == "cannot refresh Inbox: its branch is closed")
    #expect(ledger.log.all == loggedBefore)

    // The root is open: its refresh renews what it caches.
    #expect(try await root.refresh(Credential.self).map(\.feature) == ["Credential"])
    try await root.close()
    let rootClosed = await #expect(throws: FeaturesClosed.self) { try await root.refresh(Credential.self) }
    #expect(rootClosed?.diagnostic.message == "cannot refresh Credential: its branch is closed")
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  /// Every instance loaded was torn down exactly once.
  static func expectEachTornDownOnce(_ ledger: RenewalLedger, _ comment: Comment? = nil) {
    let ups = ledger.entries("up ").map { $0.dropFirst(3) }
    let downs = ledger.entries("down ").map { $0.dropFirst(5) }
    #expect(ups.sorted() == downs.sorted(), comment)
    #expect(ledger.doubleTeardowns.all.isEmpty, comment)
  }

  @Test func refreshesRacingTheCloseOfTheirBranchOrAnAncestorEndAndTearEachInstanceDownOnce() async throws {
    for round in 0..<(runsUnderThreadSanitizer ? 40 : 200) {
      let ledger = RenewalLedger()
      let root = Self.tree(ledger)
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let task = try session.branch(TaskScope.self, context: "t1")
      _ = try synchronously { try task.instance(of: Uploader.self) }
      for id in 0..<3 { _ = try synchronously { try session.instance(of: Inbox.self, context: id) } }
      let closing: Features = round.isMultiple(of: 5) ? root : (round.isMultiple(of: 2) ? session : task)
      let refreshing: Features = round.isMultiple(of: 3) ? root : (round.isMultiple(of: 2) ? task : session)
      try await withTimeout(seconds: 30) {
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { try await closing.close() }
          group.addTask {
            do {
              _ = try await refreshing.refresh(Credential.self)
              _ = try await session.refresh(Inbox.self, context: round % 3)
            } catch is FeaturesClosed {
              // The close came first.
            }
          }
          try await group.waitForAll()
        }
      }
      try await root.close()
      Self.expectEachTornDownOnce(ledger, "round \(round): \(ledger.log.all)")
    }
  }

  /// Whether `error` is `FeaturesClosed`, or a load that failed with it.
  static func isClosed(_ error: any Error) -> Bool {
    if error is FeaturesClosed { return true }
    guard let failed = error as? FeatureLoadingFailed else { return false }
    return isClosed(failed.cause)
  }

  @Test func requestsRefreshesAndACloseOnThreadsAndTasksTearEachInstanceDownOnce() async throws {
    for round in 0..<(runsUnderThreadSanitizer ? 10 : 40) {
      let ledger = RenewalLedger()
      let root = Self.tree(ledger)
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let task = try session.branch(TaskScope.self, context: "t1")
      _ = try synchronously { try task.instance(of: Uploader.self) }
      let refreshes = Task {
        for _ in 0..<20 {
          do { _ = try await task.refresh(Credential.self) } catch is FeaturesClosed { return }
          await Task.yield()
        }
      }
      let closing = Task {
        for _ in 0..<(round % 10) { await Task.yield() }
        try await session.close()
      }
      await onThreads(3) { _ in
        for _ in 0..<200 {
          do {
            _ = try ledger.receive { try task.instance(of: Uploader.self) }
          } catch {
            // Closed as it was requested, or as it loaded.
            if Self.isClosed(error) { return }
            Issue.record(error)
          }
        }
      }
      try await withTimeout(seconds: 30) {
        try await refreshes.value
        try await closing.value
      }
      try await root.close()
      #expect(ledger.staleReceipts.all.isEmpty)
      Self.expectEachTornDownOnce(ledger, "round \(round): \(ledger.log.all)")
    }
  }

  @Test func renewalsDoNotGrowWhatIsAliveAndReleasingTheTreeFreesEverything() async throws {
    let ledger = RenewalLedger()
    do {
      let root = Self.tree(ledger)
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let task = try session.branch(TaskScope.self, context: "t1")
      func loadAll() throws {
        _ = try task.instance(of: Uploader.self)
        _ = try session.instance(of: SessionKey.self)
        for id in 0..<3 { _ = try session.instance(of: Inbox.self, context: id) }
      }
      try synchronously { try loadAll() }
      #expect(ledger.live.value == 7)
      for round in 0..<100 {
        _ = try await (round.isMultiple(of: 2) ? task : root).refresh(Credential.self)
        // The first instance of each feature stays where lock-free readers may still read it until
        // the branch is released; every later one is freed once renewed.
        #expect(ledger.live.value == 7, "round \(round)")
        try synchronously { try loadAll() }
        #expect(ledger.live.value == 13, "round \(round)")
      }
      try await root.close()
    }
    #expect(ledger.live.value == 0)
    Self.expectEachTornDownOnce(ledger)
  }

  @Test func expiredInstancesAreFreedOnceTornDown() async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    do {
      let root = FeaturesRoot(clock: clock) { registry in
        registry.use(ledger.cacheable(Credential.self, timeToLive: .seconds(1)))
        registry.defineScope(SessionScope.self) { registry in
          registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
        }
      }
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      _ = try synchronously { try session.instance(of: ApiClient.self) }
      for round in 1...50 {
        clock.advance(by: .seconds(1))
        _ = try synchronously { try root.instance(of: Credential.self) }
        #expect(
          try await first(2, of: ledger.teardowns) == ["down ApiClient@ann \(round)", "down Credential \(round)"])
        _ = try synchronously { try session.instance(of: ApiClient.self) }
        // The expired instances go once their teardown task ends; the client's first instance
        // stays in place until the branch is released.
        #expect(await eventually(seconds: 30) { ledger.live.value == 3 }, "round \(round): \(ledger.live.value)")
      }
      try await root.close()
    }
    #expect(await eventually(seconds: 30) { ledger.live.value == 0 })
    Self.expectEachTornDownOnce(ledger)
  }
}
