import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// A refresh of what caches nothing says so and how to renew instead; a refresh of a feature the
/// branch does not define is `FeatureUndefined`. Nothing is loaded or torn down.
@Suite struct RenewalDiagnosticsTests {
  static let file = "ArborTests/RenewalDiagnosticsTests.swift"

  @Test func refreshingAStaticFeatureSaysItIsOneValueForTheTree() async throws {
    let line = #line + 1
    let root = FeaturesRoot { registry in registry.use(Clock(now: { 0 })) }
    let refreshLine = #line + 1
    let error = await #expect(throws: FeatureNotRenewable.self) { try await root.refresh(Clock.self) }
    #expect("\(error?.feature ?? Printer.self)" == "Clock")
    #expect(
      error?.diagnostic.renderedTree() == """
        FeatureNotRenewable: Clock caches no instance to refresh: it is static
        ├─ requested at: \(Self.file):\(refreshLine)
        ├─ scope: Root
        ├─ implementation: Clock value registered at \(Self.file):\(line) in Root
        └─ fix: a static feature is one value for the tree: register a cacheable loader for Clock to renew it,
                or a property to change a value while the tree runs
        """)
  }

  @Test func refreshingADisposableSaysEveryRequestGetsANewOneAlready() async throws {
    let line = #line + 3
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Printer.console())
        registry.use(.disposable { (tag: String, _: Features) in Tagged(tag: tag) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let refreshLine = #line + 1
    let error = await #expect(throws: FeatureNotRenewable.self) { try await session.refresh(Printer.self) }
    #expect(
      error?.diagnostic.renderedTree() == """
        FeatureNotRenewable: Printer caches no instance to refresh: it is disposable
        ├─ requested at: \(Self.file):\(refreshLine)
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ implementation: Printer.console() registered at \(Self.file):\(line) in SessionScope
        └─ fix: every request already gets a new Printer; refresh the cacheable features it uses instead
        """)
    let tagged = await #expect(throws: FeatureNotRenewable.self) {
      try await session.refresh(Tagged.self, context: "a")
    }
    #expect(tagged?.diagnostic.message == "Tagged caches no instance to refresh: it is disposable")
  }

  @Test func refreshingAFeatureTheBranchDoesNotDefineIsFeatureUndefined() async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(ledger.cacheable(ApiClient.self)) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try session.instance(of: ApiClient.self) }
    // Registered below the root only: the root does not see it.
    let error = await #expect(throws: FeatureUndefined.self) { try await root.refresh(ApiClient.self) }
    #expect(error?.diagnostic.message == "no implementation of ApiClient")
    await #expect(throws: FeatureUndefined.self) { try await session.refresh(Credential.self) }
    #expect(ledger.log.all == ["up ApiClient@ann 1"])
    try await root.close()
  }
}
