import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

extension RenewalReentrancyTests {
  /// An async loader that refreshes, while a refresh waits for its load: the loader's refresh is
  /// refused at once, so its load fails with that cause, and the waiting refresh then ends.
  @Test func anAsyncLoaderThatRefreshesIsRefusedWhileARefreshWaitsForItsLoad() async throws {
    let ledger = RenewalLedger()
    let loading = Flag()
    let gate = Flag()
    let refreshLine = #line + 10
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
    let error = await #expect(throws: FeatureLoadingFailed.self) {
      try await ended(within: 20) { try await client.value }
    }
    #expect(
      error.map { String(reflecting: $0.cause) } == """
        LifecycleWorkReentered: refresh(Settings) cannot run inside the loader of ApiClient
        ├─ requested at: ArborTests/RenewalReentrancyTests+LoaderRefreshes.swift:\(refreshLine)
        └─ fix: refresh Settings after that work ends, or from a task outside it: lifecycle work (a loader, a teardown,
                a before-serving work, a keyed branch's making) never waits for a refresh or a start
        """)
    #expect(try await ended(within: 20) { try await refresh.value }.map(\.feature) == ["Credential"])
    // Settings was never renewed; the client's loader never made one.
    #expect(ledger.entries("down ") == ["down Credential 1"])
    #expect(try synchronously { try root.instance(of: Settings.self) }.serial == 1)
    #expect(ledger.loads("ApiClient@ann") == 0)
    #expect(await ends(within: 20) { try await root.close() })
  }
}
