import Arbor
import ArborDemoFeatures
import Testing

/// A missing feature names the scopes searched, where else it is registered, and where to register it.
@Suite struct FeatureUndefinedTests {
  @Test func aMissingLoaderListsTheScopesSearchedAndEveryRegistryOnThePath() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureUndefined.self) { try session.instance(of: Mailer.self) }
    #expect(error?.feature == Mailer.self)
    expectRenderings(
      of: error,
      tree: """
        FeatureUndefined: no implementation of Mailer
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ searched: SessionScope, Root
        └─ fix: register a loader for Mailer with registry.use(...) in FeaturesRoot
                or in defineScope(SessionScope.self)
        """,
      line: "FeatureUndefined: no implementation of Mailer (\(site(line)))")
  }

  @Test func aFeatureRegisteredOffThePathSaysWhereAndHowToReachIt() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
      registry.defineScope(AdminScope.self) { registry in
        registry.use(.disposable(implementation: "smtp()") { _ in Mailer.placeholder })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureUndefined.self) { try session.instance(of: Mailer.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureUndefined: no implementation of Mailer
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ searched: SessionScope, Root
        ├─ registered in: Root › AdminScope, which is not on this branch's path
        └─ fix: register a loader for Mailer with registry.use(...) in FeaturesRoot
                or in defineScope(SessionScope.self)
                or request it from a branch of AdminScope
        """,
      line: "FeatureUndefined: no implementation of Mailer (\(site(line)))")
  }

  @Test func aMissingStaticFeatureIsRegisteredAsAValueAtTheRoot() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureUndefined.self) { try session.instance(of: Clock.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureUndefined: no implementation of Clock
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ searched: SessionScope, Root
        └─ fix: register a value for Clock with registry.use(Clock(...)) in FeaturesRoot
        """,
      line: "FeatureUndefined: no implementation of Clock (\(site(line)))")
  }
}
