import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// A refresh tears down the instances built on the refreshed one first, and it last; teardowns that
/// throw make the refresh throw `TeardownFailed` after every other teardown ran, and the instances
/// are renewed all the same.
@Suite struct RenewalTeardownTests {
  @Test func teardownsRunDependentsFirstAndTheRefreshedInstanceLast() async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self))
      registry.use(ledger.cacheable(Settings.self) { _ = try $0.instance(of: Credential.self) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(ledger.asyncCacheable(ApiClient.self) { _ = try await $0.instance(of: Settings.self) })
        registry.use(ledger.cacheable(Mirror.self) { _ = try $0.instance(of: Credential.self) })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(ledger.cacheable(Uploader.self) { _ = try $0.instance(of: ApiClient.self) })
        }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let task = try session.branch(TaskScope.self, context: "t1")
    _ = try await task.instance(of: ApiClient.self)
    _ = try await task.instance(of: Uploader.self)
    _ = try await task.instance(of: Mirror.self)

    let renewed = try await task.refresh(Credential.self)

    let downs = ledger.entries("down ")
    #expect(
      Set(downs) == [
        "down Uploader@ann/t1 1", "down ApiClient@ann 1", "down Mirror@ann 1", "down Settings 1", "down Credential 1",
      ])
    #expect(downs.has("down Uploader@ann/t1 1", before: "down ApiClient@ann 1"), "\(downs)")
    #expect(downs.has("down ApiClient@ann 1", before: "down Settings 1"), "\(downs)")
    #expect(downs.last == "down Credential 1")
    // What the refresh returns is in the order the teardowns ran.
    #expect(renewed.map(\.feature) == downs.map { String($0.dropFirst(5).prefix { $0 != "@" && $0 != " " }) })
    try await root.close()
  }

  @Test func teardownFailuresThrowTeardownFailedAfterEveryOtherTeardownRanAndTheInstancesAreRenewed() async throws {
    let ledger = RenewalLedger()
    let line = #line + 2
    let root = FeaturesRoot { registry in
      registry.use(ledger.cacheable(Credential.self, throwing: true))
      registry.use(ledger.cacheable(Settings.self) { _ = try $0.instance(of: Credential.self) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(ledger.cacheable(ApiClient.self, throwing: true) { _ = try $0.instance(of: Credential.self) })
        registry.use(ledger.cacheable(Sidecar.self) { _ = try $0.instance(of: ApiClient.self) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try synchronously { () throws in
      _ = try session.instance(of: Sidecar.self)
      _ = try session.instance(of: Settings.self)
    }

    let refreshLine = #line + 1
    let error = await #expect(throws: TeardownFailed.self) { try await session.refresh(Credential.self) }

    let failed = try #require(error)
    let file = "ArborTests/RenewalTeardownTests.swift"
    let ann = #"Root › SessionScope(Session(user: "ann"))"#
    #expect(
      failed.diagnostic.renderedTree() == """
        TeardownFailed: 2 teardowns failed while renewing in Root
        ├─ requested at: \(file):\(refreshLine)
        ├─ fix: handle the error in the teardown, or let it throw and read it here:
        │       every other teardown ran, and the next requests load new instances
        ├─ cause: Closed: ApiClient@ann 1 would not close
        │  ├─ scope: \(ann)
        │  └─ torn down: ApiClient (ApiClient.live() at \(file):\(line + 3), registered at \(file):\(line + 3))
        └─ cause: Closed: Credential 1 would not close
           ├─ scope: Root
           └─ torn down: Credential (Credential.live() at \(file):\(line), registered at \(file):\(line))
        """)
    #expect(failed.failures.map(\.feature).map { "\($0)" } == ["ApiClient", "Credential"])
    let downs = ledger.entries("down ")
    #expect(Set(downs) == ["down Sidecar@ann 1", "down ApiClient@ann 1", "down Settings 1", "down Credential 1"])
    #expect(downs.last == "down Credential 1")
    try synchronously { () throws in
      #expect(try session.instance(of: Sidecar.self).serial == 2)
      #expect(try session.instance(of: Settings.self).serial == 2)
      #expect(try session.instance(of: Credential.self).serial == 2)
    }
    #expect(ledger.loads("Credential") == 2)
    // The renewed instances' teardowns are the close's now: each runs once.
    let closing = await #expect(throws: TeardownFailed.self) { try await root.close() }
    #expect(closing?.failures.count == 2)
    #expect(ledger.doubleTeardowns.all.isEmpty)
    #expect(ledger.entries("down ").count == 8)
  }
}
