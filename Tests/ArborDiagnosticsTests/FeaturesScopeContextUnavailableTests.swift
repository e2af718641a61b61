import Arbor
import ArborDemoFeatures
import Testing

/// A missing context names the scope and how to get a branch of it; a cacheable registered too high
/// up to see it is told to move.
@Suite struct FeaturesScopeContextUnavailableTests {
  @Test func readingAContextOutsideItsScopeShowsHowToBranchIt() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
    }
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeContextUnavailable.self) { try root.context(for: SessionScope.self) }
    #expect(error?.scope == SessionScope.self)
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeContextUnavailable: no context for SessionScope
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ defined in: Root › SessionScope
        └─ fix: read it in a branch of SessionScope or below: features.branch(SessionScope.self, context: ...)
        """,
      line: "FeaturesScopeContextUnavailable: no context for SessionScope (\(site(line)))")
  }

  @Test func readingTheContextOfAScopeDefinedNowhereSaysHowToDefineIt() throws {
    let root = FeaturesRoot { _ in }
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeContextUnavailable.self) { try root.context(for: SessionScope.self) }
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeContextUnavailable: no context for SessionScope
        ├─ requested at: \(site(line))
        ├─ scope: Root
        └─ fix: define SessionScope with registry.defineScope(SessionScope.self) { ... } in FeaturesRoot
                and read it in its branches
        """,
      line: "FeaturesScopeContextUnavailable: no context for SessionScope (\(site(line)))")
  }

  @Test func aCacheableRegisteredAboveTheScopeIsToldWhyAndWhereToMove() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features in
          let session = try features.context(for: SessionScope.self)
          return Greeter(greet: { _ = session })
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try session.instance(of: Greeter.self) }
    #expect(error?.cause is FeaturesScopeContextUnavailable)
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Greeter
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ implementation: Greeter.live() registered at \(site(base + 2)) in Root
        └─ cause: FeaturesScopeContextUnavailable: no context for SessionScope
           ├─ requested at: \(site(base + 4))
           ├─ why: Greeter is cacheable and registered in Root, so it loads in the Root branch
           │       and cannot see the context of a SessionScope branch
           └─ fix: register Greeter in defineScope(SessionScope.self) so it loads in branches of SessionScope
        """,
      line: "FeatureLoadingFailed: could not load Greeter (\(site(line)))"
        + " ← FeaturesScopeContextUnavailable: no context for SessionScope (\(site(base + 4)))")
  }
}
