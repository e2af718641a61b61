import ArborDemoFeatures
import ArborTestSupport
import ArborTesting
import Synchronization
import Testing

/// A test container's close reaches what its `load(...)` calls and its copied ancestors hold.
@Suite struct TestContainerCloseInFlightTests {
  struct Store: CacheableFeature {
    var name: String
    static var placeholder: Store { Store(name: "placeholder") }
  }

  /// Registered at the root: cached in a copy's copied root.
  struct Ledger: CacheableFeature {
    static var placeholder: Ledger { Ledger() }
  }

  /// A signal one task raises and another suspends for, at most `seconds`.
  final class Signal: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
    func wait(seconds: Double = 30) async -> Bool { await eventually(seconds: seconds) { isRaised } }
  }

  @Test func aLoadInFlightWhenTheContainerClosesIsWaitedForAndTornDown() async throws {
    let closed = Lines()
    let started = Signal()
    let release = Signal()
    let features = TestFeatures()
    let loader = FeatureLoader.cacheable(implementation: "slow()") { _ async in
      started.raise()
      _ = await release.wait()
      return Store(name: "slow")
    } teardown: { store in
      closed.append("closed \(store.name)")
    }
    let load = Task { () async throws -> Store in try await features.load(loader) }
    #expect(await started.wait())
    let close = Task { try await features.close() }
    #expect(await eventually { features.waits.closesForLoads == 1 })  // the close waits for the load
    #expect(closed.all == [])
    release.raise()
    _ = try? await load.value
    try await close.value
    #expect(closed.all == ["closed slow"])
    #expect(features.tornDown.map(\.description) == ["Store (Store.slow()) in Root"])
  }

  /// Inside a loader under test, the close returns at once; it goes on, and tears the loaded
  /// instance down.
  @Test func aLoaderUnderTestThatClosesItsOwnContainerReturnsAtOnce() async throws {
    let closed = Lines()
    let features = TestFeatures()
    let loader = FeatureLoader.cacheable(implementation: "closing()") { (features: Features) async throws in
      try await features.close()
      return Store(name: "closing")
    } teardown: { store in
      closed.append("closed \(store.name)")
    }
    let ended = Signal()
    Task {
      let _: Store? = try? await features.load(loader)
      try? await features.close()
      ended.raise()
    }
    #expect(await ended.wait())
    #expect(closed.all == ["closed closing"])
  }

  @Test func aCopyOfABranchClosesWithItsCopiedAncestors() async throws {
    let closed = Lines()
    let root = ledgerAndStoreTree(closed)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let issues = try await capturingIssues {
      let copy = TestFeatures(session)
      _ = try await copy.instance(of: Store.self)
      _ = try await copy.instance(of: Ledger.self)  // cached in the copy's root
      try await copy.close()
      #expect(closed.all == ["closed ann", "closed the root's ledger"])
      #expect(
        copy.tornDown.map(\.branch) == [#"Root › SessionScope(Session(user: "ann"))"#, "Root"])
    }
    #expect(issues.isEmpty)  // nothing was released with a teardown that never ran
    #expect(closed.all.count == 2)  // the tree copied from is untouched
    try await root.close()
  }

  @Test func aClosedContainerAnswersNoSidePath() async throws {
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    try await features.close()
    #expect(throws: FeaturesClosed.self) { try features.instanceIfDefined(of: Store.self) }
    await #expect(throws: FeaturesClosed.self) { try await features.instanceIfDefined(of: Store.self) }
    #expect(throws: FeaturesClosed.self) { try features.context(ifPresent: SessionScope.self) }
    #expect(features.which(Store.self).diagnostic?.kind == "FeaturesClosed")
  }
}
