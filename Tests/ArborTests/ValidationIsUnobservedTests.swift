import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Testing

@Suite struct ValidationIsUnobservedTests {
  @Test func aLoadProfileOfARootThatValidatedShowsNothingOfValidation() async throws {
    let profile = LoadProfile()
    let root = FeaturesRoot(observer: profile) { registry in
      registry.use(Clock(now: { 0 }))
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.live())
      }
    }
    try await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }.check()
    #expect(profile.loads.isEmpty)
    #expect(profile.report() == "0 loads, 0.00 ms at the top")
    // What the tree does afterwards is profiled as before.
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Greeter.self)
    #expect(
      profile.loads.map { "\($0.feature) in \($0.scope.map(\.name).joined(separator: " › "))" } == [
        "Printer in Root › SessionScope", "Greeter in Root › SessionScope",
      ])
  }

  @Test func theTreesObserverIsToldOfNoBranchLoadOrTeardownOfValidation() async throws {
    let events = EventLog()
    let root = FeaturesRoot(observer: events) { registry in
      registry.use(.cacheable({ _ in Handle() }, teardown: { _ in }))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable({ features in Lease(handle: try features.instance(of: Handle.self)) }))
        registry.defineScope(JobScope.self) { registry in
          registry.use(.cacheable({ _ async in Handle() }, teardown: { _ in }))
        }
      }
    }
    let before = events.all
    #expect(before == ["branchCreated Root"])
    try await root.validate { $0.use(Session(user: "check"), for: SessionScope.self) }.check()
    #expect(events.all == before)
  }
}

/// Every event an observer is told of, in order.
private final class EventLog: FeaturesObserver {
  private let events = Lock<[String]>.make([])
  var all: [String] { events.withLock { $0 } }
  private func add(_ event: String) { events.withLock { $0.append(event) } }
  func loaded(_ load: LoadEvent) { add("loaded \(load.feature)") }
  func branchCreated(_ branch: BranchEvent) {
    add("branchCreated \(branch.scope.map(\.name).joined(separator: " › "))")
  }
  func branchClosed(_ branch: BranchEvent) { add("branchClosed \(branch.scope.map(\.name).joined(separator: " › "))") }
  func tornDown(_ teardown: TeardownEvent) { add("tornDown") }
}

private struct Handle: CacheableFeature {
  static var placeholder: Handle { Handle() }
}

private struct Lease: CacheableFeature {
  let handle: Handle
  static var placeholder: Lease { Lease(handle: .placeholder) }
}

private enum JobScope: FeaturesScope {}
