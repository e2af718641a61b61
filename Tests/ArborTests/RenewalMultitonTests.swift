import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// A multiton is renewed one context at a time: `refresh(_:context:)` renews that context's instance
/// and what was built on it; a multiton built on a refreshed cacheable is renewed for every context.
@Suite struct RenewalMultitonTests {
  /// Mailboxes per id in the root; per session, an inbox per id built on the mailbox of that id, and
  /// a client built on mailbox 1. Quotas per id are built on the credential.
  static func tree(_ ledger: RenewalLedger) -> Features {
    FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.use(ledger.multiton(Mailbox.self))
      registry.use(ledger.multiton(Quota.self) { _, features in _ = try features.instance(of: Credential.self) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          ledger.multiton(Inbox.self) { id, features in _ = try features.instance(of: Mailbox.self, context: id) })
        registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Mailbox.self, context: 1) })
      }
    }
  }

  static let ann = #"Root › SessionScope(Session(user: "ann"))"#
  static let bob = #"Root › SessionScope(Session(user: "bob"))"#

  @Test func aRefreshWithAContextRenewsThatContextsInstanceAndItsDependentsOnly() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    try synchronously { () throws in
      for session in [ann, bob] {
        for id in 1...2 { _ = try session.instance(of: Inbox.self, context: id) }
        _ = try session.instance(of: ApiClient.self)
      }
    }

    let renewed = try await bob.refresh(Mailbox.self, context: 1)

    #expect(
      Set(renewed.map(\.description)) == [
        "Inbox for 1 (Inbox.live()) in \(Self.ann)", "Inbox for 1 (Inbox.live()) in \(Self.bob)",
        "ApiClient (ApiClient.live()) in \(Self.ann)", "ApiClient (ApiClient.live()) in \(Self.bob)",
        "Mailbox for 1 (Mailbox.live()) in Root",
      ])
    #expect(renewed.last?.context == AnyHashable(1))
    #expect(renewed.last?.feature == "Mailbox")
    #expect(renewed.last?.implementation == "Mailbox.live()")
    let downs = ledger.entries("down ")
    #expect(downs.count == 5)
    #expect(downs.last == "down Mailbox(1) 1")
    try synchronously { () throws in
      for session in [ann, bob] {
        #expect(try session.instance(of: Inbox.self, context: 1).serial == 2)
        #expect(try session.instance(of: Inbox.self, context: 2).serial == 1)
        #expect(try session.instance(of: ApiClient.self).serial == 2)
      }
      #expect(try root.instance(of: Mailbox.self, context: 1).serial == 2)
      #expect(try root.instance(of: Mailbox.self, context: 2).serial == 1)
    }
    #expect(ledger.loads("Mailbox(1)") == 2)
    #expect(ledger.loads("Mailbox(2)") == 1)
    #expect(ledger.loads("Inbox@ann(1)") == 2)
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  @Test func aContextIsRenewedAgainAndAgainAndOthersLoadedMeanwhileStayCached() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try ann.instance(of: Inbox.self, context: 1) }
    for round in 1...3 {
      let renewed = try await ann.refresh(Mailbox.self, context: 1)
      #expect(
        renewed.map(\.description) == [
          "Inbox for 1 (Inbox.live()) in \(Self.ann)", "Mailbox for 1 (Mailbox.live()) in Root",
        ])
      #expect(ledger.entries("down ").suffix(2) == ["down Inbox@ann(1) \(round)", "down Mailbox(1) \(round)"])
      try synchronously { () throws in
        #expect(try ann.instance(of: Inbox.self, context: 1).serial == round + 1)
        // A context first loaded after a renewal of another stays cached.
        #expect(try root.instance(of: Mailbox.self, context: 3).serial == 1)
      }
    }
    #expect(ledger.loads("Mailbox(3)") == 1)
    #expect(
      try await root.refresh(Mailbox.self, context: 3).map(\.description) == [
        "Mailbox for 3 (Mailbox.live()) in Root"
      ])
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  @Test func aMultitonBuiltOnARefreshedCacheableIsRenewedForEveryContext() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    try synchronously { for id in 1...3 { _ = try root.instance(of: Quota.self, context: id) } }

    let renewed = try await root.refresh(Credential.self)

    #expect(
      renewed.map(\.description).sorted() == [
        "Credential (Credential.live()) in Root",
        "Quota for 1 (Quota.live()) in Root",
        "Quota for 2 (Quota.live()) in Root",
        "Quota for 3 (Quota.live()) in Root",
      ])
    #expect(renewed.last?.feature == "Credential")
    #expect(ledger.entries("down ").last == "down Credential 1")
    try synchronously { () throws in
      for id in 1...3 { #expect(try root.instance(of: Quota.self, context: id).serial == 2) }
    }
    #expect(ledger.loads("Credential") == 2)
    try await root.close()
  }

  @Test func aRefreshOfAContextNeverLoadedRenewsNothing() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    _ = try synchronously { try root.instance(of: Mailbox.self, context: 1) }
    #expect(try await root.refresh(Mailbox.self, context: 2).isEmpty)
    #expect(ledger.log.all == ["up Mailbox(1) 1"])
    try await root.close()
  }
}
