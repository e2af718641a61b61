import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import ArborTesting
import Synchronization
import Testing

/// A test container's close combined with the rest: loads under test racing the close, loaders
/// that close their container through tasks, and copies of trees closed from copies and from
/// many tasks.
@Suite struct TestContainerCloseAttackTests {
  typealias Store = TestContainerCloseInFlightTests.Store
  typealias Ledger = TestContainerCloseInFlightTests.Ledger

  /// Counts, from any task.
  final class Count: Sendable {
    private let value = Atomic<Int>(0)
    func add() { value.add(1, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
  }

  /// Runs `body` in a task of its own and waits for it, at most `seconds`: a close that waits for
  /// itself fails the test instead of hanging it.
  func ends(within seconds: Double = 30, _ body: @escaping @Sendable () async throws -> Void) async -> Bool {
    let ended = Atomic<Bool>(false)
    let failure = Lock<(any Error)?>.make(nil)
    Task {
      do { try await body() } catch { failure.withLock { $0 = error } }
      ended.store(true, ordering: .releasing)
    }
    guard await eventually(seconds: seconds, { ended.load(ordering: .acquiring) }) else { return false }
    if let error = failure.withLock({ $0 }) { Issue.record(error) }
    return true
  }

  // MARK: Loads under test racing the close

  /// Many loads under test, `async` and synchronous, racing the container's close: each either
  /// hands out an instance that is then torn down, or throws `FeaturesClosed`.
  @Test func loadsRacingTheCloseAreEachTornDownOrRefused() async throws {
    let features = TestFeatures()
    let made = Count()
    let closed = Count()
    let unexpected = Lines()
    let loader = FeatureLoader.cacheable(implementation: "counted()") { _ async in
      await Task.yield()
      made.add()
      return Store(name: "counted")
    } teardown: { _ in
      closed.add()
    }
    let syncLoader = FeatureLoader.cacheable(implementation: "counted()") { _ in
      made.add()
      return Store(name: "counted")
    } teardown: { _ in
      closed.add()
    }
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<32 {
        group.addTask {
          do {
            let _: Store =
              index.isMultiple(of: 2)
              ? try await features.load(loader) : try { () throws -> Store in try features.load(syncLoader) }()
          } catch is FeaturesClosed {
          } catch {
            unexpected.append("\(error)")
          }
        }
        if index == 16 { group.addTask { try? await features.close() } }
      }
    }
    #expect(await ends { try await features.close() })
    #expect(unexpected.all == [])
    #expect(made.current == closed.current)
    #expect(features.tornDown.count == made.current)
  }

  /// A loader under test awaits a task it starts that closes its container: the task inherits the
  /// loader, lifecycle work, so its close returns at once; the close goes on, and the instance is
  /// torn down.
  @Test func aLoaderAwaitingATaskThatClosesItsContainerReturnsAtOnce() async throws {
    let closed = Lines()
    let features = TestFeatures()
    let loader = FeatureLoader.cacheable(implementation: "closing()") { (features: Features) async throws in
      try await Task { try await features.close() }.value
      return Store(name: "closing")
    } teardown: { store in
      closed.append("closed \(store.name)")
    }
    #expect(await ends { let _: Store = try await features.load(loader) })
    #expect(await ends { try await features.close() })
    #expect(closed.all == ["closed closing"])
  }

  /// A loader under test closes its container while a close started first waits for it: inside a
  /// loader, that close joins the first and returns at once, and both end.
  @Test func aLoaderClosingItsContainerWhileItClosesReturnsAtOnce() async throws {
    let closed = Lines()
    let features = TestFeatures()
    let started = TestContainerCloseInFlightTests.Signal()
    let closing = TestContainerCloseInFlightTests.Signal()
    let loader = FeatureLoader.cacheable(implementation: "closing()") { (features: Features) async throws in
      started.raise()
      _ = await closing.wait()
      try await features.close()
      return Store(name: "closing")
    } teardown: { store in
      closed.append("closed \(store.name)")
    }
    let load = Task { () async throws -> Store in try await features.load(loader) }
    #expect(await started.wait())
    let close = Task { try await features.close() }
    #expect(await eventually { features.waits.closesForLoads == 1 })  // the close waits for the load
    closing.raise()
    #expect(await ends { _ = try await load.value })
    #expect(await ends { try await close.value })
    #expect(closed.all == ["closed closing"])
  }

  // MARK: Copies of trees

  /// A copy of a copy closes with its own copied ancestors, not the first copy's, and nothing of
  /// either is dropped with a teardown that never ran.
  @Test func aCopyOfACopyClosesOnlyItsOwnAncestors() async throws {
    let closed = Lines()
    let root = ledgerAndStoreTree(closed)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let issues = try await capturingIssues {
      let first = TestFeatures(session)
      _ = try await first.instance(of: Ledger.self)
      let second = TestFeatures(first)
      _ = try await second.instance(of: Store.self)
      _ = try await second.instance(of: Ledger.self)
      try await second.close()
      #expect(closed.all == ["closed ann", "closed the root's ledger"])
      _ = try await first.instance(of: Store.self)  // the first copy is still open
      try await first.close()
      #expect(closed.all == ["closed ann", "closed the root's ledger", "closed ann", "closed the root's ledger"])
    }
    #expect(issues.isEmpty)
    try await root.close()
  }

  /// A copy's leaf closed from many tasks at once, with a branch made below it: every close ends,
  /// each teardown runs once, the branch below first.
  @Test func aCopyClosedFromManyTasksTearsEachInstanceDownOnce() async throws {
    let closed = Lines()
    let root = ledgerAndStoreTree(closed)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let issues = try await capturingIssues {
      let copy = TestFeatures(session)
      _ = try await copy.instance(of: Ledger.self)
      let nested = try copy.branch(SessionScope.self, context: Session(user: "bob"))
      _ = try await nested.instance(of: Store.self)
      _ = try await copy.instance(of: Store.self)
      await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<8 { group.addTask { await ends { try await copy.close() } } }
        for await ended in group { #expect(ended) }
      }
      #expect(closed.all == ["closed bob", "closed ann", "closed the root's ledger"])
      await #expect(throws: FeaturesClosed.self) { try await nested.instance(of: Store.self) }
    }
    #expect(issues.isEmpty)
    try await root.close()
  }

  /// An async loader of a copy's leaf closes its own features: the copy closes with its copied
  /// ancestors, and the loader's instance is torn down with them.
  @Test func aLoaderOfACopyClosingItsBranchClosesTheCopy() async throws {
    let closed = Lines()
    let closing = FeatureLoader.cacheable { (features: Features) async throws in
      try await features.close()
      return Store(name: "closing")
    } teardown: { store in
      closed.append("closed \(store.name)")
    }
    let root = ledgerAndStoreTree(closed, store: closing)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let issues = try await capturingIssues {
      let copy = TestFeatures(session)
      _ = try await copy.instance(of: Ledger.self)
      #expect(await ends { _ = try await copy.instance(of: Store.self) })
      #expect(await ends { try await copy.close() })
      #expect(closed.all == ["closed closing", "closed the root's ledger"])
    }
    #expect(issues.isEmpty)
    try await root.close()
  }
}

/// A tree with a ledger at the root and a store in sessions (named after the session's user
/// unless `store` loads it), each logging its teardown.
func ledgerAndStoreTree(_ closed: Lines, store: FeatureLoader? = nil) -> Features {
  FeaturesRoot { registry in
    registry.use(
      .cacheable { _ in
        TestContainerCloseInFlightTests.Ledger()
      } teardown: { _ in
        closed.append("closed the root's ledger")
      })
    registry.defineScope(SessionScope.self) { registry in
      registry.use(
        store
          ?? .cacheable { features in
            TestContainerCloseInFlightTests.Store(name: try features.context(for: SessionScope.self).user)
          } teardown: { store in
            closed.append("closed \(store.name)")
          })
    }
  }
}
