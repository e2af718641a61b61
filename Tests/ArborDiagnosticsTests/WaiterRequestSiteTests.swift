import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// A request that waits for another's load that fails gets the shared cause, with its own request
/// site and path: never the site of the request that happened to start the load.
@Suite struct WaiterRequestSiteTests {
  @Test func aThreadThatWaitedForAFailedLoadIsToldItsOwnSiteAndBranch() throws {
    let started = Atomic<Bool>(false)
    let bobWaits = Atomic<Bool>(false)
    let loads = Atomic<Int>(0)
    let registered = (use: #line + 2, loader: #line + 3)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "remote()") { features -> TaxTable in
          loads.add(1, ordering: .relaxed)
          started.store(true, ordering: .releasing)
          // Fails only once the other thread waits for this load.
          bobWaits.store(blockUntil { features.waits.requestsForLoads == 1 }, ordering: .releasing)
          throw Offline()
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let errors = Lock<[Int: String]>.make([:])
    let lines = (first: #line + 7, second: #line + 11)
    let group = DispatchGroup()
    for index in 0..<2 {
      group.enter()
      Thread {
        defer { group.leave() }
        if index == 0 {
          let error = #expect(throws: FeatureLoadingFailed.self) { try ann.instance(of: TaxTable.self) }
          errors.withLock { $0[0] = error.map { String(reflecting: $0) } }
        } else {
          _ = blockUntil { started.load(ordering: .acquiring) }
          let error = #expect(throws: FeatureLoadingFailed.self) { try bob.instance(of: TaxTable.self) }
          errors.withLock { $0[1] = error.map { String(reflecting: $0) } }
        }
      }.start()
    }
    group.wait()
    let waited = bobWaits.load(ordering: .acquiring)
    #expect(waited)  // the other thread waited for the load
    let loaded = loads.load(ordering: .relaxed)
    #expect(loaded == 1)
    for (index, line) in [lines.first, lines.second].enumerated() {
      #expect(errors.withLock { $0[index] } == failure(requestedAt: line, registered: registered))
    }
  }

  @Test func aTaskThatWaitedForAFailedAsyncLoadIsToldItsOwnSite() async throws {
    let registered = (use: #line + 2, loader: #line + 3)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "remote()") { features async throws -> TaxTable in
          // Fails only once both requests wait for this load.
          #expect(await eventually { features.waits.requestsForLoads == 2 })
          throw Offline()
        })
    }
    let lines = (first: #line + 2, second: #line + 5)
    async let first: String? = {
      let error = await #expect(throws: FeatureLoadingFailed.self) { try await root.instance(of: TaxTable.self) }
      return error.map { String(reflecting: $0) }
    }()
    let error = await #expect(throws: FeatureLoadingFailed.self) { try await root.instance(of: TaxTable.self) }
    let second = error.map { String(reflecting: $0) }
    for (text, line) in [(await first, lines.first), (second, lines.second)] {
      #expect(text == failure(requestedAt: line, registered: registered))
    }
  }

  /// What a request at `line` is told of the `remote()` loader registered at `registered` failing.
  func failure(requestedAt line: Int, registered: (use: Int, loader: Int)) -> String {
    """
    FeatureLoadingFailed: could not load TaxTable
    ├─ requested at: \(site(line))
    ├─ scope: Root
    ├─ implementation: TaxTable.remote() registered at \(site(registered.use)) in Root
    ├─ fix: TaxTable.remote() (\(site(registered.loader))) threw the cause: handle it there,
    │       or request TaxTable again: failures are not cached
    └─ cause: Offline: the network is down
    """
  }
}
