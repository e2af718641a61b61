import ArborDemoFeatures
import ArborTesting
import Testing

/// Test containers close like real branches, and a test can assert what was torn down.
@Suite struct TestContainerCloseTests {
  /// A resource whose teardown the test checks.
  struct Store: CacheableFeature {
    var name: String
    static var placeholder: Store { Store(name: "placeholder") }

    static func live(_ closed: Lines) -> FeatureLoader {
      .cacheable { features in
        Store(name: try features.context(for: SessionScope.self).user)
      } teardown: { store in
        closed.print("closed \(store.name)")
      }
    }
  }

  struct LiveStore: FeatureImplementation {
    init(context: NoContext, features: Features) throws {}
    var instance: Store { Store(name: "live") }
    static var teardown: (@Sendable (Store) async throws -> Void)? { { _ in } }
  }

  @Test func aLoaderUnderTestIsTornDownWhenTheContainerCloses() async throws {
    let closed = Lines()
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let store: Store = try await features.load(Store.live(closed))
    #expect(store.name == "ann")
    #expect(features.tornDown.isEmpty)
    try await features.close()
    #expect(closed.all == ["closed ann"])
    #expect(features.tornDown.map(\.name) == ["Store"])
    #expect(features.tornDown.map(\.implementation) == ["Store.live(_:)"])
    #expect(features.tornDown.map(\.description) == ["Store (Store.live(_:)) in Root"])
  }

  @Test func aContainerThatLoadedNothingWithATeardownClosesAtOnceAndRefusesRequests() async throws {
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    features.patch(\Store.name, with: "patched")
    #expect(try await features.instance(of: Store.self).name == "patched")
    try await features.close()
    #expect(features.tornDown.isEmpty)
    await #expect(throws: FeaturesClosed.self) { try await features.instance(of: Store.self) }
    try await features.close()  // a second close sees the first one's outcome
  }

  @Test func anImplementationTypeUnderTestIsTornDownWithItsTeardown() async throws {
    let features = TestFeatures()
    _ = try features.load(LiveStore.self)
    try await features.close()
    #expect(features.tornDown.map(\.description) == ["Store (LiveStore) in Root"])
  }

  @Test func branchesOfACopiedTreeCloseLikeTheTreesOwn() async throws {
    let closed = Lines()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(Store.live(closed)) }
    }
    let features = TestFeatures(root)
    let ann = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try features.branch(SessionScope.self, context: Session(user: "bob"))
    _ = try await ann.instance(of: Store.self)
    _ = try await bob.instance(of: Store.self)
    try await ann.close()
    #expect(features.tornDown.map(\.branch) == [#"Root › SessionScope(Session(user: "ann"))"#])
    try await features.close()  // the container's root: bob's branch, below it, closes first
    #expect(closed.all == ["closed ann", "closed bob"])
    #expect(features.tornDown.map(\.branch).last == #"Root › SessionScope(Session(user: "bob"))"#)
    await #expect(throws: FeaturesClosed.self) { try await bob.instance(of: Store.self) }
  }

  @Test func aClosedContainerRefusesLoadsAndPatchedRequests() async throws {
    let features = TestFeatures()
    features.patch(\Clock.now, with: { 1 })
    try await features.close()
    await #expect(throws: FeaturesClosed.self) { try await features.instance(of: Clock.self) }
    await #expect(throws: FeaturesClosed.self) {
      let _: Store = try await features.load(Store.live(Lines()))
    }
    #expect(throws: FeaturesClosed.self) { try features.load(LiveStore.self) }
  }

  @Test func aFailingTeardownIsListedWithItsError() async throws {
    let features = TestFeatures()
    let loader = FeatureLoader.cacheable(implementation: "flaky()") { _ in
      Store(name: "flaky")
    } teardown: { _ in
      throw Offline()
    }
    let _: Store = try await features.load(loader)
    await #expect(throws: TeardownFailed.self) { try await features.close() }
    #expect(features.tornDown.map(\.description) == ["Store (Store.flaky()) in Root, threw offline"])
  }

  @Test func aContainerDroppedWithALoadedTeardownFailsTheTest() async throws {
    let issues = try await capturingIssues {
      let features = TestFeatures()
      let _: Store = try await features.load(
        FeatureLoader.cacheable { _ in
          Store(name: "kept")
        } teardown: { _ in
        })
    }
    #expect(issues.count == 1)
    #expect(
      issues.first?.text.hasPrefix("TeardownSkipped: a branch was released without close(): 1 teardown never ran")
        == true)
  }
}

/// The error of a teardown that fails in these tests.
private struct Offline: Error, CustomStringConvertible {
  var description: String { "offline" }
}
