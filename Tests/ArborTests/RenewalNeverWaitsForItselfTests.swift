import Arbor
import ArborDiagnostics
import Testing

/// A refresh made where waiting for the tree's refresh turn would wait for itself runs at once:
/// from a teardown of a refresh, and from inside a load.
@Suite struct RenewalNeverWaitsForItselfTests {
  struct Token: CacheableFeature {
    var value: Int
    static var placeholder: Token { Token(value: -1) }
  }

  struct Client: CacheableFeature {
    var token: Int
    static var placeholder: Client { Client(token: -1) }
  }

  @Test func aTeardownThatRefreshesAnotherFeatureEnds() async throws {
    let log = Collected<String>()
    // The root, for the teardown to refresh through; let go of at the end, since the root's
    // registrations keep the teardown.
    let rootBox = Lock<Features?>.make(nil)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          Client(token: 0)
        } teardown: { _ in
          log.append("down client")
        })
      registry.use(
        .cacheable { _ in
          Token(value: 1)
        } teardown: { _ in
          log.append("down token")
          // Renews another feature from inside this refresh's teardown.
          _ = try await rootBox.withLock { $0 }?.refresh(Client.self)
        })
    }
    rootBox.withLock { $0 = root }
    defer { rootBox.withLock { $0 = nil } }
    _ = try synchronously { (try root.instance(of: Token.self), try root.instance(of: Client.self)) }
    let renewed = try await withTimeout { try await root.refresh(Token.self) }
    #expect(renewed.map(\.feature) == ["Token"])
    #expect(log.all == ["down token", "down client"])
  }

  @Test func anAsyncLoaderThatRefreshesEnds() async throws {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Token(value: 1) })
      registry.use(
        .cacheable { features async throws in
          let token = try await features.instance(of: Token.self)
          // A refresh from inside a load: the new instance is the next request's.
          _ = try await features.refresh(Token.self)
          return Client(token: token.value)
        })
    }
    _ = try synchronously { try root.instance(of: Token.self) }
    let client = try await withTimeout { try await root.instance(of: Client.self) }
    #expect(client.token == 1)
  }
}
