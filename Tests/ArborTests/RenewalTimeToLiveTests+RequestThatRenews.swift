import Arbor
import ArborDemoFeatures
import Testing

extension RenewalTimeToLiveTests {
  /// The request that finds an instance expired receives the new one: a dependent it loads is built
  /// on the new instance, and is not renewed with the expired one.
  @Test(arguments: [false, true])
  func aDependentWhoseLoadFindsTheInstanceExpiredIsLoadedOnce(_ async: Bool) async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let root = Self.tree(ledger, clock: clock, async: async)
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await ann.instance(of: ApiClient.self)
    clock.advance(by: .seconds(60))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))

    // Bob's client is the first to request the expired credential: built on the new one.
    #expect(try await bob.instance(of: ApiClient.self).serial == 1)

    let expiredTeardowns = try await first(2, of: ledger.teardowns)
    #expect(expiredTeardowns == ["down ApiClient@ann 1", "down Credential 1"])
    #expect(try await root.instance(of: Credential.self).serial == 2)
    #expect(try await ann.instance(of: ApiClient.self).serial == 2)
    #expect(try await bob.instance(of: ApiClient.self).serial == 1)
    #expect(ledger.loads("ApiClient@bob") == 1)
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

}
