import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// Renewal is the same whether the refreshed feature and its dependents load synchronously or
/// asynchronously, either way round, multitons included.
@Suite struct RenewalAsyncLoadersTests {
  /// How the credential and the instances built on it load.
  struct Kinds: Sendable, CustomTestStringConvertible {
    var asyncCredential: Bool
    var asyncDependents: Bool
    var testDescription: String {
      "\(asyncCredential ? "async" : "sync") credential, \(asyncDependents ? "async" : "sync") dependents"
    }
  }

  static let kinds = [
    Kinds(asyncCredential: false, asyncDependents: false), Kinds(asyncCredential: false, asyncDependents: true),
    Kinds(asyncCredential: true, asyncDependents: false), Kinds(asyncCredential: true, asyncDependents: true),
  ]

  /// A credential in the root, a quota per id built on it; a client per session built on it, and
  /// an uploader per task built on the client.
  static func tree(_ ledger: RenewalLedger, _ kinds: Kinds) -> Features {
    FeaturesRoot { registry in
      registry.use(kinds.asyncCredential ? ledger.asyncCacheable(Credential.self) : ledger.cacheable(Credential.self))
      if kinds.asyncDependents {
        registry.use(
          ledger.asyncMultiton(Quota.self) { _, features in _ = try await features.instance(of: Credential.self) })
      } else {
        registry.use(ledger.multiton(Quota.self) { _, features in _ = try features.instance(of: Credential.self) })
      }
      registry.defineScope(SessionScope.self) { registry in
        if kinds.asyncDependents {
          registry.use(ledger.asyncCacheable(ApiClient.self) { _ = try await $0.instance(of: Credential.self) })
        } else {
          registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
        }
        registry.defineScope(TaskScope.self) { registry in
          if kinds.asyncDependents {
            registry.use(ledger.asyncCacheable(Uploader.self) { _ = try await $0.instance(of: ApiClient.self) })
          } else {
            registry.use(ledger.cacheable(Uploader.self) { _ = try $0.instance(of: ApiClient.self) })
          }
        }
      }
    }
  }

  static let ann = #"Root › SessionScope(Session(user: "ann"))"#

  @Test(arguments: kinds)
  func dependentsAreRenewedTransitivelyAndLoadedOnceMore(_ kinds: Kinds) async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger, kinds)
    let task = try root.branch(SessionScope.self, context: Session(user: "ann")).branch(TaskScope.self, context: "t1")
    func loadAll() async throws -> [Int] {
      // A synchronous loader reads an async credential the async path loaded already.
      if kinds.asyncCredential && !kinds.asyncDependents { _ = try await root.instance(of: Credential.self) }
      return [
        try await task.instance(of: Uploader.self).serial,
        try await root.instance(of: Quota.self, context: 1).serial,
        try await root.instance(of: Quota.self, context: 2).serial,
        try await task.instance(of: ApiClient.self).serial,
        try await task.instance(of: Credential.self).serial,
      ]
    }
    #expect(try await loadAll() == [1, 1, 1, 1, 1])
    for round in 1...2 {
      let renewed = try await task.refresh(Credential.self)
      #expect(
        Set(renewed.map(\.description)) == [
          "Uploader (Uploader.live()) in \(Self.ann) › TaskScope(t1)", "ApiClient (ApiClient.live()) in \(Self.ann)",
          "Quota for 1 (Quota.live()) in Root", "Quota for 2 (Quota.live()) in Root",
          "Credential (Credential.live()) in Root",
        ])
      #expect(renewed.count == 5)
      let downs = ledger.entries("down ")
      #expect(downs.has("down Uploader@ann/t1 \(round)", before: "down ApiClient@ann \(round)"), "\(downs)")
      #expect(downs.has("down ApiClient@ann \(round)", before: "down Credential \(round)"), "\(downs)")
      #expect(downs.has("down Quota(2) \(round)", before: "down Credential \(round)"), "\(downs)")
      #expect(downs.last == "down Credential \(round)")
      #expect(try await loadAll() == Array(repeating: round + 1, count: 5))
      for label in ["Credential", "ApiClient@ann", "Uploader@ann/t1", "Quota(1)", "Quota(2)"] {
        #expect(ledger.loads(label) == round + 1, "\(label)")
      }
    }
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
    #expect(ledger.entries("down ").count == 15)
  }

  @Test(arguments: [false, true])
  func anAsyncMultitonContextIsRenewedWithItsAsyncDependents(_ asyncDependent: Bool) async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in
      registry.use(ledger.asyncMultiton(Mailbox.self))
      registry.defineScope(SessionScope.self) { registry in registry.use(ledger.inboxes(async: asyncDependent)) }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    for id in 1...2 {
      if !asyncDependent { _ = try await root.instance(of: Mailbox.self, context: id) }
      _ = try await ann.instance(of: Inbox.self, context: id)
    }

    let renewed = try await ann.refresh(Mailbox.self, context: 2)

    #expect(
      renewed.map(\.description) == [
        "Inbox for 2 (Inbox.live()) in \(Self.ann)", "Mailbox for 2 (Mailbox.live()) in Root",
      ])
    #expect(ledger.entries("down ") == ["down Inbox@ann(2) 1", "down Mailbox(2) 1"])
    if !asyncDependent { _ = try await root.instance(of: Mailbox.self, context: 2) }
    #expect(try await ann.instance(of: Inbox.self, context: 2).serial == 2)
    #expect(try await ann.instance(of: Inbox.self, context: 1).serial == 1)
    #expect(ledger.loads("Mailbox(2)") == 2)
    #expect(ledger.loads("Mailbox(1)") == 1)
    try await root.close()
  }
}
