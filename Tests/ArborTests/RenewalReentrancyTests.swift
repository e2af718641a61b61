import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// A refresh asked for by lifecycle work (a teardown a refresh runs, a loader) is refused at once
/// with ``LifecycleWorkReentered``: it never waits for the turn its own refresh holds, nor for a
/// load that waits for it.
@Suite(.timeLimit(.minutes(1))) struct RenewalReentrancyTests {
  @Test func aTeardownThatRefreshesAnotherFeatureIsRefusedAndItsRefreshFails() async throws {
    let ledger = RenewalLedger()
    let later = Later<Features>()
    let refused = Collected<String>()
    let (implementationLine, registrationLine, refreshLine) = (#line + 4, #line + 3, #line + 9)
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Settings.self))
      registry.use(
        .cacheable(implementation: "live()") { features in
          ledger.make(Credential.self, in: features)
        } teardown: { credential in
          guard credential.serial == 1 else { return }
          do {
            _ = try await later.get.refresh(Settings.self)
          } catch {
            refused.append(String(reflecting: error))
            throw error
          }
        })
    }
    later.set(root)
    defer { later.clear() }
    try synchronously {
      _ = try root.instance(of: Credential.self)
      _ = try root.instance(of: Settings.self)
    }
    let file = "ArborTests/RenewalReentrancyTests.swift"
    let error = await #expect(throws: TeardownFailed.self) {
      try await ended(within: 20) { try await root.refresh(Credential.self) }
    }
    #expect(error?.failures.map { "\($0.feature)" } == ["Credential"])
    #expect(error?.failures.first?.cause is LifecycleWorkReentered)
    #expect(
      refused.all == [
        """
        LifecycleWorkReentered: refresh(Settings) cannot run inside the teardown of Credential \
        (Credential.live() at \(file):\(implementationLine), registered at \(file):\(registrationLine))
        ├─ requested at: \(file):\(refreshLine)
        └─ fix: refresh Settings after that work ends, or from a task outside it: lifecycle work (a loader, a teardown,
                a before-serving work, a keyed branch's making) never waits for a refresh or a start
        """
      ])
    // Settings was not renewed; Credential was.
    #expect(ledger.entries("down ") == [])
    #expect(try synchronously { try root.instance(of: Settings.self) }.serial == 1)
    #expect(try synchronously { try root.instance(of: Credential.self) }.serial == 2)
    #expect(await ends(within: 20) { try await root.close() })
    #expect(ledger.entries("down ") == ["down Settings 1"])
  }
}
