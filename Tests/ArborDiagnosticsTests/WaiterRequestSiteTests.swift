import Arbor
import ArborDemoFeatures
import Dispatch
import Foundation
import Synchronization
import Testing

/// A request that waits for another's load that fails gets the shared cause, with its own request
/// site and path: never the site of the request that happened to start the load.
@Suite struct WaiterRequestSiteTests {
  /// Raised by one thread, awaited by another.
  final class Signal: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    func wait() {
      let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
      while !raised.load(ordering: .acquiring), DispatchTime.now().uptimeNanoseconds < deadline { usleep(100) }
    }
  }

  @Test func aThreadThatWaitedForAFailedLoadIsToldItsOwnSiteAndBranch() throws {
    // The second thread must come while the first load runs; on a busy machine it may come after
    // it failed (and then loads for itself), so a round counts only when the loader ran once.
    for round in 0..<5 {
      let hold = UInt32(150_000 << round)  // 150 ms to 2.4 s
      let started = Signal()
      let loads = Atomic<Int>(0)
      let registered = (use: #line + 2, loader: #line + 3)
      let root = FeaturesRoot { registry in
        registry.use(
          .cacheable(implementation: "remote()") { _ -> TaxTable in
            loads.add(1, ordering: .relaxed)
            started.raise()
            usleep(hold)  // long enough, this round, for the other thread to wait for this load
            throw Offline()
          })
        registry.defineScope(SessionScope.self) { _ in }
      }
      let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
      let errors = Mutex<[Int: String]>([:])
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
            started.wait()
            let error = #expect(throws: FeatureLoadingFailed.self) { try bob.instance(of: TaxTable.self) }
            errors.withLock { $0[1] = error.map { String(reflecting: $0) } }
          }
        }.start()
      }
      group.wait()
      // The other thread came after the failure and loaded for itself: try again, holding longer.
      guard loads.load(ordering: .relaxed) == 1 else { continue }
      for (index, line) in [lines.first, lines.second].enumerated() {
        #expect(errors.withLock { $0[index] } == failure(requestedAt: line, registered: registered))
      }
      return
    }
    Issue.record("in no round did the second thread wait for the failing load")
  }

  @Test func aTaskThatWaitedForAFailedAsyncLoadIsToldItsOwnSite() async throws {
    let registered = (use: #line + 2, loader: #line + 3)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "remote()") { _ async throws -> TaxTable in
          try await Task.sleep(for: .milliseconds(150))
          throw Offline()
        })
    }
    let lines = (first: #line + 2, second: #line + 6)
    async let first: String? = {
      let error = await #expect(throws: FeatureLoadingFailed.self) { try await root.instance(of: TaxTable.self) }
      return error.map { String(reflecting: $0) }
    }()
    try await Task.sleep(for: .milliseconds(20))
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
