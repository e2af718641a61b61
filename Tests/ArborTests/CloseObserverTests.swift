import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Testing

/// An observer is told of every teardown (what, where, how long, how it ended) and of every branch
/// closed, each after the branches below it.
@Suite struct CloseObserverTests {
  final class Recorder: FeaturesObserver {
    let events = Lock<[String]>.make([])

    func branchClosed(_ branch: BranchEvent) {
      events.withLock { $0.append("closed \(branch.scope.map(\.name).joined(separator: " › "))") }
    }

    func tornDown(_ teardown: TeardownEvent) {
      let outcome = teardown.failure.map { " threw \($0.kind)" } ?? ""
      events.withLock { $0.append("tore down \(teardown.feature) (\(teardown.implementation))\(outcome)") }
    }
  }

  @Test func teardownsAndClosedBranchesAreObservedInOrder() async throws {
    let recorder = Recorder()
    let log = Collected<String>()
    let root = FeaturesRoot(observer: recorder) { registry in
      registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Cache(name: "cache") }, named: "cache", throwing: true))
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Cache.self)
    _ = try await root.instance(of: Pool.self)
    await #expect(throws: TeardownFailed.self) { try await root.close() }
    #expect(
      recorder.events.withLock { $0 } == [
        "tore down Cache (Cache.live()) threw Closed", "closed Root › SessionScope",
        "tore down Pool (Pool.live())", "closed Root",
      ])
  }
}
