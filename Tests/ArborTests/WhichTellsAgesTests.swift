import Arbor
import ArborDemoFeatures
import Testing

/// `which` tells a cacheable's time-to-live and, once its instance is held, when it was loaded and
/// when it expires, on the root's clock.
@Suite struct WhichTellsAgesTests {
  let clock = ManualClock()

  func root() -> Features {
    FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()", timeToLive: .seconds(60)) { _ in ExpiringToken(value: 1) },
        file: "App/Main.swift", line: 12)
      registry.use(
        .cacheable(implementation: "live()") { _ in TokenClient(token: 1) }, file: "App/Main.swift", line: 13)
      registry.defineScope(SessionScope.self) { _ in }
    }
  }

  @Test func aCacheableWithATimeToLiveSaysItBeforeItsFirstLoad() {
    let which = root().which(ExpiringToken.self)
    #expect(which.implementation?.timeToLive == .seconds(60))
    #expect(which.implementation?.instance == nil)
    #expect(
      String(describing: which) == """
        ExpiringToken is served by ExpiringToken.live()
        ├─ scope: Root
        ├─ registered at: App/Main.swift:12 in Root
        ├─ kind: cacheable, one instance per branch
        ├─ time-to-live: 1 min
        └─ cached in: Root, this branch
        """)
    #expect(
      which.summary()
        == "ExpiringToken is served by ExpiringToken.live() (cacheable, time-to-live 1 min), registered at App/Main.swift:12 in Root"
    )
  }

  @Test func aLoadedInstanceSaysWhenItWasLoadedAndWhenItExpires() async throws {
    let root = root()
    clock.advance(by: .seconds(10))
    _ = try await root.instance(of: ExpiringToken.self)
    clock.advance(by: .seconds(30))
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let which = session.which(ExpiringToken.self)
    let instance = try #require(which.implementation?.instance)
    #expect(instance.loadedAt == .seconds(10))
    #expect(instance.expiresAt == .seconds(70))
    #expect(instance.now == .seconds(40))
    #expect(instance.age == .seconds(30))
    #expect(instance.expiresIn == .seconds(30))
    #expect(
      which.renderedTree(style: .ascii) == """
        ExpiringToken is served by ExpiringToken.live()
        |- scope: Root > SessionScope(Session(user: "ann"))
        |- registered at: App/Main.swift:12 in Root
        |- kind: cacheable, one instance per branch
        |- time-to-live: 1 min
        |- cached in: Root, an ancestor: shared with every branch below it,
        |             and its loader cannot see the contexts of this branch
        `- instance: loaded 30 s ago, expires in 30 s
        """)
    // As the Diagnostics article shows it, asked in the branch that caches it.
    #expect(
      String(describing: root.which(ExpiringToken.self)) == """
        ExpiringToken is served by ExpiringToken.live()
        ├─ scope: Root
        ├─ registered at: App/Main.swift:12 in Root
        ├─ kind: cacheable, one instance per branch
        ├─ time-to-live: 1 min
        ├─ cached in: Root, this branch
        └─ instance: loaded 30 s ago, expires in 30 s
        """)
    #expect(
      which.json(pretty: false).contains(
        #""isCachedInAncestor":true,"timeToLiveMilliseconds":60000,"instance":{"loadedAtMilliseconds":10000,"#
          + #""expiresAtMilliseconds":70000,"ageMilliseconds":30000,"expiresInMilliseconds":30000}}"#))
    try await session.close()
  }

  @Test func anExpiredInstanceSaysTheNextRequestRenewsIt() async throws {
    let root = root()
    _ = try await root.instance(of: ExpiringToken.self)
    clock.advance(by: .seconds(75))
    #expect(
      root.which(ExpiringToken.self).description.hasSuffix(
        "└─ instance: loaded 1 min 15 s ago, expired 15 s ago: the next request renews it"))
    _ = try await root.instance(of: ExpiringToken.self)
    #expect(root.which(ExpiringToken.self).description.hasSuffix("└─ instance: loaded 0 s ago, expires in 1 min"))
  }

  @Test func anInstanceRenewedByARefreshHasAnAgeAndNoExpiry() async throws {
    let root = root()
    _ = try await root.instance(of: TokenClient.self)
    // Cached in place since its first load: no age is recorded.
    #expect(root.which(TokenClient.self).implementation?.instance == nil)
    #expect(root.which(TokenClient.self).implementation?.timeToLive == nil)
    _ = try await root.refresh(TokenClient.self)
    _ = try await root.instance(of: TokenClient.self)
    clock.advance(by: .seconds(5))
    let which = root.which(TokenClient.self)
    #expect(which.implementation?.instance?.expiresIn == nil)
    #expect(
      String(describing: which) == """
        TokenClient is served by TokenClient.live()
        ├─ scope: Root
        ├─ registered at: App/Main.swift:13 in Root
        ├─ kind: cacheable, one instance per branch
        ├─ cached in: Root, this branch
        └─ instance: loaded 5 s ago
        """)
    #expect(which.json(pretty: false).contains(#""expiresAtMilliseconds":null,"#))
  }
}
