import Arbor
import ArborDemoFeatures
import Testing

/// Refresh and time-to-live, end to end: a token, a client built on it in a session, a cache that
/// uses neither.
@Suite struct RenewalSmokeTests {
  struct Token: CacheableFeature {
    var value: Int
    static var placeholder: Token { Token(value: -1) }
  }

  struct Client: CacheableFeature {
    var token: Int
    static var placeholder: Client { Client(token: -1) }
  }

  static func tree(_ log: Collected<String>, clock: ManualClock = ManualClock(), ttl: Duration? = nil) -> Features {
    let counter = Collected<Int>()
    return FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()", timeToLive: ttl) { _ in
          counter.append(1)
          log.append("up token \(counter.all.count)")
          return Token(value: counter.all.count)
        } teardown: { token in
          log.append("down token \(token.value)")
        })
      registry.use(resource(log, { Cache(name: "cache") }, named: "cache"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in
            let token = try features.instance(of: Token.self)
            log.append("up client \(token.value)")
            return Client(token: token.value)
          } teardown: { client in
            log.append("down client \(client.token)")
          })
      }
    }
  }

  @Test func refreshRenewsTheTokenAndTheClientBuiltOnItButNotTheCache() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try synchronously { try session.instance(of: Client.self).token } == 1)
    _ = try synchronously { try root.instance(of: Cache.self) }
    let renewed = try await root.refresh(Token.self)
    #expect(
      renewed.map(\.description) == [
        #"Client (Client.live()) in Root › SessionScope(Session(user: "ann"))"#,
        "Token (Token.live()) in Root",
      ])
    #expect(log.all == ["up token 1", "up client 1", "up cache", "down client 1", "down token 1"])
    #expect(try synchronously { try session.instance(of: Client.self).token } == 2)
    #expect(try synchronously { try root.instance(of: Token.self).value } == 2)
    // Renewed once more: held instances are renewed too.
    _ = try await session.refresh(Token.self)
    #expect(try synchronously { try session.instance(of: Client.self).token } == 3)
    try await root.close()
    #expect(log.all.suffix(3) == ["down client 3", "down token 3", "down cache"])
  }

  @Test func anExpiredTokenIsRenewedWithItsClientByTheRequestThatFindsIt() async throws {
    let log = Collected<String>()
    let clock = ManualClock()
    let root = Self.tree(log, clock: clock, ttl: .seconds(60))
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try synchronously { try session.instance(of: Client.self).token } == 1)
    clock.advance(by: .seconds(30))
    #expect(try synchronously { try root.instance(of: Token.self).value } == 1)
    clock.advance(by: .seconds(30))
    #expect(try synchronously { try root.instance(of: Token.self).value } == 2)
    #expect(try synchronously { try session.instance(of: Client.self).token } == 2)
    try await root.close()
    #expect(log.all.contains("down client 1"))
    #expect(log.all.contains("down token 1"))
  }

  @Test func refreshingADisposableSaysItCachesNothing() async throws {
    let root = FeaturesRoot { registry in registry.use(Printer.console()) }
    let error = await #expect(throws: FeatureNotRenewable.self) { try await root.refresh(Printer.self) }
    #expect(error?.diagnostic.message == "Printer caches no instance to refresh: it is disposable")
  }
}
