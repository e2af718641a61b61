import Arbor
import ArborDemoFeatures
import Testing

/// A failure inside a branch two scopes deep shows the whole scope path, each branch's context.
@Suite struct BranchTwoScopesDeepTests {
  @Test func aFailureInARequestBranchOfASessionBranchShowsBothContexts() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { registry in
          registry.use(
            .cacheable(implementation: "live()") { features in
              let request = try features.context(for: RequestScope.self)
              _ = try features.instance(of: Mailer.self)
              return Checkout(total: { request.id })
            })
        }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: Request(id: 7))
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try request.instance(of: Checkout.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Checkout
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann")) › RequestScope(Request(id: 7))
        ├─ path: Checkout → Mailer
        ├─ implementation: Checkout.live() registered at \(site(base + 4)) in RequestScope
        └─ cause: FeatureUndefined: no implementation of Mailer
           ├─ requested at: \(site(base + 7))
           ├─ searched: RequestScope, SessionScope, Root
           └─ fix: register a loader for Mailer with registry.use(...) in FeaturesRoot
                   or in defineScope(SessionScope.self)
                   or in defineScope(RequestScope.self)
        """,
      line: "FeatureLoadingFailed: could not load Checkout (\(site(line)))"
        + " ← FeatureUndefined: no implementation of Mailer (\(site(base + 7)))")
    #expect(
      error?.diagnostic.scope == [
        .init(name: "Root"), .init(name: "SessionScope", context: #"Session(user: "ann")"#),
        .init(name: "RequestScope", context: "Request(id: 7)"),
      ])
  }

  @Test func aFailureRequestedDirectlyInTheDeepBranch() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
    let request = try root.branch(SessionScope.self, context: Session(user: "bob"))
      .branch(RequestScope.self, context: Request(id: 12))
    let line = #line + 1
    let error = #expect(throws: FeatureUndefined.self) { try request.instance(of: Greeter.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureUndefined: no implementation of Greeter
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "bob")) › RequestScope(Request(id: 12))
        ├─ searched: RequestScope, SessionScope, Root
        └─ fix: register a loader for Greeter with registry.use(...) in FeaturesRoot
                or in defineScope(SessionScope.self)
                or in defineScope(RequestScope.self)
        """,
      line: "FeatureUndefined: no implementation of Greeter (\(site(line)))")
  }
}
