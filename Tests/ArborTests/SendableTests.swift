import Arbor
import ArborDemoFeatures
import Testing

@Suite struct SendableTests {
  func requireSendable<T: Sendable>(_: T.Type) {}

  @Test func everythingAUserHoldsIsSendable() {
    requireSendable(Features.self)
    requireSendable(FeatureLoader.self)
    requireSendable(Diagnostic.self)
    requireSendable(FeatureUndefined.self)
    requireSendable(FeatureLoadingFailed.self)
    requireSendable(CircularDependency.self)
  }

  @Test func featuresAreUsedFromManyTasksAtOnce() async throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: loads.next()) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let serials = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<32 { group.addTask { try session.instance(of: Counter.self).serial } }
      return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
    }
    #expect(serials == [1])
  }
}
