import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// A refresh renews the instance and exactly the instances built from it, directly or through
/// others, across branches and scopes and through disposables; nothing else. The next requests
/// load each renewed instance once.
@Suite struct RenewalDependentsTests {
  /// The root caches a credential, settings and a quota per id (built on the credential); a
  /// disposable relay is built on the credential. Each session caches a client (on the credential),
  /// a sidecar (on the settings), a key (on nothing) and a mirror (on the relay); each task below a
  /// session caches an uploader (on the client) and a note (on the key).
  static func tree(_ ledger: RenewalLedger) -> Features {
    FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.use(ledger.cacheable(Settings.self))
      registry.use(ledger.multiton(Quota.self) { _, features in _ = try features.instance(of: Credential.self) })
      registry.use(.disposable { features in Relay(credential: try features.instance(of: Credential.self).serial) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
        registry.use(ledger.cacheable(Sidecar.self) { _ = try $0.instance(of: Settings.self) })
        registry.use(ledger.cacheable(SessionKey.self))
        registry.use(ledger.cacheable(Mirror.self) { _ = try $0.instance(of: Relay.self) })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(ledger.cacheable(Uploader.self) { _ = try $0.instance(of: ApiClient.self) })
          registry.use(ledger.cacheable(TaskNote.self) { _ = try $0.instance(of: SessionKey.self) })
        }
      }
    }
  }

  /// Two sessions, each with a task: every feature loaded once, in every branch that caches it.
  struct Loaded {
    let root: Features
    let ann: Features
    let bob: Features
    let annTask: Features
    let bobTask: Features

    init(_ ledger: RenewalLedger) throws {
      root = RenewalDependentsTests.tree(ledger)
      ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
      bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
      annTask = try ann.branch(TaskScope.self, context: "t1")
      bobTask = try bob.branch(TaskScope.self, context: "t1")
      for task in [annTask, bobTask] {
        _ = try task.instance(of: Uploader.self)
        _ = try task.instance(of: TaskNote.self)
      }
      for session in [ann, bob] {
        _ = try session.instance(of: Sidecar.self)
        _ = try session.instance(of: Mirror.self)
      }
      _ = try root.instance(of: Quota.self, context: 1)
      _ = try root.instance(of: Quota.self, context: 2)
    }

    /// The serial of every instance, by label, as requests now receive them (loading what is missing).
    func serials() throws -> [String: Int] {
      var serials: [String: Int] = [:]
      func note(_ instance: some Followed) { serials[instance.life.label] = instance.serial }
      note(try root.instance(of: Credential.self))
      note(try root.instance(of: Settings.self))
      note(try root.instance(of: Quota.self, context: 1))
      note(try root.instance(of: Quota.self, context: 2))
      for session in [ann, bob] {
        note(try session.instance(of: ApiClient.self))
        note(try session.instance(of: Sidecar.self))
        note(try session.instance(of: SessionKey.self))
        note(try session.instance(of: Mirror.self))
      }
      for task in [annTask, bobTask] {
        note(try task.instance(of: Uploader.self))
        note(try task.instance(of: TaskNote.self))
      }
      return serials
    }
  }

  static let ann = #"Root › SessionScope(Session(user: "ann"))"#
  static let bob = #"Root › SessionScope(Session(user: "bob"))"#

  /// What a refresh of the credential renews, whichever branch it is called from.
  static let credentialAndDependents: Set<String> = [
    "Uploader (Uploader.live()) in \(ann) › TaskScope(t1)",
    "Uploader (Uploader.live()) in \(bob) › TaskScope(t1)",
    "ApiClient (ApiClient.live()) in \(ann)",
    "ApiClient (ApiClient.live()) in \(bob)",
    "Mirror (Mirror.live()) in \(ann)",
    "Mirror (Mirror.live()) in \(bob)",
    "Quota for 1 (Quota.live()) in Root",
    "Quota for 2 (Quota.live()) in Root",
    "Credential (Credential.live()) in Root",
  ]

  /// The labels of the instances built on the credential, directly or not.
  static let credentialLabels: Set<String> = [
    "Credential", "Quota(1)", "Quota(2)", "ApiClient@ann", "ApiClient@bob", "Mirror@ann", "Mirror@bob",
    "Uploader@ann/t1", "Uploader@bob/t1",
  ]

  /// Checks that the teardowns ran each dependent before what it was built from.
  static func expectDependentsTornDownFirst(_ downs: [String], serial: Int) {
    func down(_ label: String) -> String { "down \(label) \(serial)" }
    for user in ["ann", "bob"] {
      #expect(downs.has(down("Uploader@\(user)/t1"), before: down("ApiClient@\(user)")), "\(downs)")
      #expect(downs.has(down("ApiClient@\(user)"), before: down("Credential")), "\(downs)")
      #expect(downs.has(down("Mirror@\(user)"), before: down("Credential")), "\(downs)")
    }
    #expect(downs.has(down("Quota(1)"), before: down("Credential")), "\(downs)")
    #expect(downs.last == down("Credential"), "\(downs)")
  }

  @Test func aRefreshAtTheRootRenewsEveryInstanceBuiltOnTheFeatureInEverySessionAndTaskAndNothingElse() async throws {
    let ledger = RenewalLedger()
    let tree = try synchronously { try Loaded(ledger) }
    let before = try synchronously { try tree.serials() }
    #expect(before.values.allSatisfy { $0 == 1 })

    let renewed = try await tree.root.refresh(Credential.self)

    #expect(Set(renewed.map(\.description)) == Self.credentialAndDependents)
    #expect(renewed.count == Self.credentialAndDependents.count)
    #expect(renewed.last?.description == "Credential (Credential.live()) in Root")
    let downs = ledger.entries("down ")
    #expect(Set(downs) == Set(Self.credentialLabels.map { "down \($0) 1" }))
    Self.expectDependentsTornDownFirst(downs, serial: 1)

    let after = try synchronously { try tree.serials() }
    for (label, serial) in after {
      #expect(serial == (Self.credentialLabels.contains(label) ? 2 : 1), "\(label)")
      #expect(ledger.loads(label) == serial, "\(label)")
    }
    try await tree.root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  @Test func aRefreshFromATaskRenewsTheFeatureInTheBranchThatCachesIt() async throws {
    let ledger = RenewalLedger()
    let tree = try synchronously { try Loaded(ledger) }

    let renewed = try await tree.annTask.refresh(Credential.self)

    // Cached in the root: renewed there, with its dependents in every session, not only ann's.
    #expect(Set(renewed.map(\.description)) == Self.credentialAndDependents)
    #expect(renewed.last?.scope.count == 1)
    Self.expectDependentsTornDownFirst(ledger.entries("down "), serial: 1)
    #expect(try synchronously { try tree.bobTask.instance(of: Uploader.self).serial } == 2)
    #expect(ledger.loads("Credential") == 2)
    try await tree.root.close()
  }

  @Test func aRefreshOfASessionsFeatureRenewsItsDependentsInThatSessionOnly() async throws {
    let ledger = RenewalLedger()
    let tree = try synchronously { try Loaded(ledger) }
    let before = try synchronously { try tree.serials() }

    let renewed = try await tree.annTask.refresh(SessionKey.self)

    #expect(
      renewed.map(\.description) == [
        "TaskNote (TaskNote.live()) in \(Self.ann) › TaskScope(t1)",
        "SessionKey (SessionKey.live()) in \(Self.ann)",
      ])
    #expect(ledger.entries("down ") == ["down TaskNote@ann/t1 1", "down SessionKey@ann 1"])
    let after = try synchronously { try tree.serials() }
    for (label, serial) in after {
      let renewedLabel = label == "TaskNote@ann/t1" || label == "SessionKey@ann"
      #expect(serial == (renewedLabel ? 2 : before[label]), "\(label)")
    }
    try await tree.root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  @Test func aRefreshOfADependentRenewsWhatIsBuiltOnItButNotWhatItIsBuiltOn() async throws {
    let ledger = RenewalLedger()
    let tree = try synchronously { try Loaded(ledger) }

    let renewed = try await tree.ann.refresh(ApiClient.self)

    #expect(
      renewed.map(\.description) == [
        "Uploader (Uploader.live()) in \(Self.ann) › TaskScope(t1)",
        "ApiClient (ApiClient.live()) in \(Self.ann)",
      ])
    #expect(ledger.entries("down ") == ["down Uploader@ann/t1 1", "down ApiClient@ann 1"])
    #expect(try synchronously { try tree.annTask.instance(of: Uploader.self).serial } == 2)
    #expect(ledger.loads("Credential") == 1)
    #expect(ledger.loads("ApiClient@bob") == 1)
    try await tree.root.close()
  }

  @Test func aCacheableBuiltFromADisposableThatUsedTheFeatureIsADependent() async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.use(.disposable { features in Relay(credential: try features.instance(of: Credential.self).serial) })
      registry.use(ledger.cacheable(Mirror.self) { _ = try $0.instance(of: Relay.self) })
      registry.use(ledger.cacheable(Settings.self) { _ = try $0.instance(of: Mirror.self) })
    }
    _ = try synchronously { try root.instance(of: Settings.self) }

    let renewed = try await root.refresh(Credential.self)

    #expect(renewed.map(\.feature) == ["Settings", "Mirror", "Credential"])
    #expect(ledger.entries("down ") == ["down Settings 1", "down Mirror 1", "down Credential 1"])
    #expect(try synchronously { try root.instance(of: Relay.self).credential } == 2)
    #expect(try synchronously { try root.instance(of: Settings.self).serial } == 2)
    #expect(ledger.loads("Mirror") == 2)
    #expect(ledger.loads("Credential") == 2)
    try await root.close()
  }

  @Test func aRefreshOfAFeatureWithoutACachedInstanceRenewsAndLoadsNothing() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try session.instance(of: SessionKey.self) }

    #expect(try await root.refresh(Credential.self).isEmpty)
    #expect(try await session.refresh(ApiClient.self).isEmpty)
    #expect(ledger.log.all == ["up SessionKey@ann 1"])
    try await root.close()
  }

  @Test func theInstancesOfARenewalAreRenewedAgainByTheNextRefresh() async throws {
    let ledger = RenewalLedger()
    let tree = try synchronously { try Loaded(ledger) }
    for round in 1...3 {
      let renewed = try await tree.bob.refresh(Credential.self)
      #expect(Set(renewed.map(\.description)) == Self.credentialAndDependents, "round \(round)")
      Self.expectDependentsTornDownFirst(ledger.entries("down "), serial: round)
      let serials = try synchronously { try tree.serials() }
      for label in Self.credentialLabels { #expect(serials[label] == round + 1, "\(label)") }
    }
    try await tree.root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  @Test func aSessionsOwnImplementationIsRenewedApartFromTheRootsOne() async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.use(ledger.cacheable(Settings.self) { _ = try $0.instance(of: Credential.self) })
      registry.defineScope(SessionScope.self) { registry in
        // The session's own credential: its client is built on it, not on the root's.
        registry.use(ledger.cacheable(Credential.self))
        registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try synchronously {
      _ = try session.instance(of: ApiClient.self)
      _ = try session.instance(of: Settings.self)
    }

    #expect(
      try await root.refresh(Credential.self).map(\.description) == [
        "Settings (Settings.live()) in Root", "Credential (Credential.live()) in Root",
      ])
    #expect(
      try await session.refresh(Credential.self).map(\.description) == [
        "ApiClient (ApiClient.live()) in \(Self.ann)", "Credential (Credential.live()) in \(Self.ann)",
      ])
    #expect(
      ledger.entries("down ") == [
        "down Settings 1", "down Credential 1", "down ApiClient@ann 1", "down Credential@ann 1",
      ])
    try await root.close()
  }
}
