import Arbor
import ArborDemoFeatures
import Testing

/// A refresh made by a teardown that a refresh runs is part of that refresh: it ends, instead of
/// waiting for the turn its own refresh holds.
@Suite(.timeLimit(.minutes(1))) struct RenewalReentrancyTests {
  @Test func aTeardownThatRefreshesAnotherFeatureEnds() async throws {
    let ledger = RenewalLedger()
    let later = Later<Features>()
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Settings.self))
      registry.use(
        .cacheable(implementation: "live()") { features in
          ledger.make(Credential.self, in: features)
        } teardown: { _ in
          _ = try await later.get.refresh(Settings.self)
        })
    }
    later.set(root)
    defer { later.clear() }
    try synchronously {
      _ = try root.instance(of: Credential.self)
      _ = try root.instance(of: Settings.self)
    }
    #expect(await ends(within: 20) { _ = try await root.refresh(Credential.self) })
    #expect(ledger.entries("down ") == ["down Settings 1"])
  }
}
