import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

extension RenewalReentrancyTests {
  /// An async loader that refreshes while a refresh waits for its load: neither waits for the other.
  @Test func anAsyncLoaderThatRefreshesWhileARefreshWaitsForItEnds() async throws {
    let ledger = RenewalLedger()
    let loading = Flag()
    let gate = Flag()
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.use(ledger.cacheable(Settings.self))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          ledger.asyncCacheable(ApiClient.self) { features in
            _ = try await features.instance(of: Credential.self)
            loading.raise()
            _ = await gate.suspendUntilRaised()
            _ = try await features.refresh(Settings.self)
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try synchronously {
      _ = try root.instance(of: Credential.self)
      _ = try root.instance(of: Settings.self)
    }
    let client = Task { try await session.instance(of: ApiClient.self) }
    #expect(await loading.suspendUntilRaised())
    let refresh = Task { try await root.refresh(Credential.self) }
    // The refresh waits for the client's load, which has received the credential.
    #expect(await eventually { session.waits.closesForLoads == 1 })
    gate.raise()
    #expect(await ends(within: 20) { _ = try await refresh.value })
    #expect(await ends(within: 20) { _ = try await client.value })
  }
}
