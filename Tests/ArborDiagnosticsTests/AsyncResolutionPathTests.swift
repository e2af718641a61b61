import Arbor
import ArborDemoFeatures
import Testing

/// Failures inside async loaders read like synchronous ones: the same path, sites and hints.
@Suite struct AsyncResolutionPathTests {
  @Test func aFailureInsideAnAsyncLoaderShowsThePathThroughIt() async throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features async throws in
          _ = try await features.instance(of: Pricing.self)
          return Checkout.placeholder
        })
    }
    let line = #line + 1
    let error = await #expect(throws: FeatureLoadingFailed.self) { try await root.instance(of: Checkout.self) }
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Checkout
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ path: Checkout → Pricing
        ├─ implementation: Checkout.live() registered at \(site(base + 2)) in Root
        └─ cause: FeatureUndefined: no implementation of Pricing
           ├─ requested at: \(site(base + 4))
           ├─ searched: Root
           └─ fix: register a loader for Pricing with registry.use(...) in FeaturesRoot
        """,
      line: "FeatureLoadingFailed: could not load Checkout (\(site(line)))"
        + " ← FeatureUndefined: no implementation of Pricing (\(site(base + 4)))")
  }

  @Test func anAsyncCacheableRegisteredAboveTheScopeIsToldWhyItCannotSeeTheContext() async throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features async throws in
          let session = try features.context(for: SessionScope.self)
          return Greeter(greet: { _ = session })
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let error = await #expect(throws: FeatureLoadingFailed.self) { try await session.instance(of: Greeter.self) }
    let cause = try #require(error?.diagnostic.causes.first)
    #expect(
      cause.renderedTree() == """
        FeaturesScopeContextUnavailable: no context for SessionScope
        ├─ requested at: \(site(base + 4))
        ├─ why: Greeter is cacheable and registered in Root, so it loads in the Root branch
        │       and cannot see the context of a SessionScope branch
        └─ fix: register Greeter in defineScope(SessionScope.self) so it loads in branches of SessionScope
        """)
  }
}
