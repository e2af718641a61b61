import Arbor
import ArborDemoFeatures
import Testing

/// A loader's error is the cause of the loading failure: its description, or its own tree.
@Suite struct FeatureLoadingFailedTests {
  @Test func aLoadersOwnErrorIsTheCauseWithAFixPointingAtTheLoader() throws {
    let registered = #line + 2
    let root = FeaturesRoot { registry in
      registry.use(.disposable(implementation: "smtp()") { _ -> Mailer in throw Offline() })
    }
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Mailer.self) }
    #expect(error?.cause is Offline)
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Mailer
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ implementation: Mailer.smtp() registered at \(site(registered)) in Root
        ├─ fix: Mailer.smtp() (\(site(registered))) threw the cause: handle it there,
        │       or request Mailer again: failures are not cached
        └─ cause: Offline: the network is down
        """,
      line: "FeatureLoadingFailed: could not load Mailer (\(site(line))) ← Offline: the network is down")
  }

  @Test func aNestedArborErrorNestsItsTree() throws {
    let registered = #line + 3
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in
            _ = try features.instance(of: Printer.self)
            return Greeter.placeholder
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try session.instance(of: Greeter.self) }
    #expect(error?.cause is FeatureUndefined)
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Greeter
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ path: Greeter → Printer
        ├─ implementation: Greeter.live() registered at \(site(registered)) in SessionScope
        └─ cause: FeatureUndefined: no implementation of Printer
           ├─ requested at: \(site(registered + 2))
           ├─ searched: SessionScope, Root
           └─ fix: register a loader for Printer with registry.use(...) in FeaturesRoot
                   or in defineScope(SessionScope.self)
        """,
      line: "FeatureLoadingFailed: could not load Greeter (\(site(line)))"
        + " ← FeatureUndefined: no implementation of Printer (\(site(registered + 2)))")
  }

  @Test func aUsersOwnDiagnosticErrorNestsItsTreeToo() throws {
    let registered = #line + 2
    let root = FeaturesRoot { registry in
      registry.use(.disposable(implementation: "smtp()") { _ -> Mailer in throw QuotaExceeded() })
    }
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Mailer.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Mailer
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ implementation: Mailer.smtp() registered at \(site(registered)) in Root
        └─ cause: QuotaExceeded: 100 of 100 mails sent today
           └─ fix: wait until midnight UTC
        """,
      line: "FeatureLoadingFailed: could not load Mailer (\(site(line))) ← QuotaExceeded: 100 of 100 mails sent today")
  }

  @Test func aCauseInAnotherBranchKeepsItsScope() throws {
    // Greeter loads in the session branch; the Checkout it needs is cached, and fails, in the root.
    let registered = #line + 2
    let root = FeaturesRoot { registry in
      registry.use(.cacheable(implementation: "live()") { _ -> Checkout in throw Offline() })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in
            _ = try features.instance(of: Checkout.self)
            return Greeter.placeholder
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try session.instance(of: Greeter.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Greeter
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ path: Greeter → Checkout
        ├─ implementation: Greeter.live() registered at \(site(registered + 2)) in SessionScope
        └─ cause: FeatureLoadingFailed: could not load Checkout
           ├─ requested at: \(site(registered + 4))
           ├─ scope: Root
           ├─ implementation: Checkout.live() registered at \(site(registered)) in Root
           ├─ fix: Checkout.live() (\(site(registered))) threw the cause: handle it there,
           │       or request Checkout again: failures are not cached
           └─ cause: Offline: the network is down
        """,
      line: "FeatureLoadingFailed: could not load Greeter (\(site(line)))"
        + " ← FeatureLoadingFailed: could not load Checkout (\(site(registered + 4)))"
        + " ← Offline: the network is down")
  }
}
