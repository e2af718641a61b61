import Arbor
import ArborDemoFeatures
import Testing

/// Branching a scope where it is not defined, or requiring one that is not on the path, says where
/// the scope is defined and how to reach a branch of it.
@Suite struct FeaturesScopeUndefinedTests {
  let root = FeaturesRoot { registry in
    registry.defineScope(SessionScope.self) { registry in
      registry.defineScope(RequestScope.self) { _ in }
    }
  }

  @Test func branchingAScopeDefinedFurtherDownNamesTheBranchesToMakeOnTheWay() throws {
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) {
      try root.branch(RequestScope.self, context: Request(id: 1))
    }
    #expect(error?.scope == RequestScope.self)
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeUndefined: RequestScope is not defined in Root
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ defined in: Root › SessionScope › RequestScope
        └─ fix: branch SessionScope first: features.branch(SessionScope.self, context: ...).branch(RequestScope.self, context: ...)
                or define it with registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
        """,
      line: "FeaturesScopeUndefined: RequestScope is not defined in Root (\(site(line)))")
  }

  @Test func branchingAScopeDefinedInASiblingScopeNamesTheBranchesToMakeFromHere() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(AdminScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) {
      try session.branch(RequestScope.self, context: Request(id: 1))
    }
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeUndefined: RequestScope is not defined in SessionScope or above
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ defined in: Root › AdminScope › RequestScope
        └─ fix: branch AdminScope first: features.branch(AdminScope.self).branch(RequestScope.self, context: ...)
                or define it with registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
                or in defineScope(SessionScope.self)
        """,
      line: "FeaturesScopeUndefined: RequestScope is not defined in SessionScope or above (\(site(line)))")
  }

  @Test func branchingAScopeHiddenByANearerDefinitionOnTheWayNamesTheScopeToBranchItFrom() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(AdminScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(AdminScope.self) { _ in }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) {
      try session.branch(RequestScope.self, context: Request(id: 1))
    }
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeUndefined: RequestScope is not defined in SessionScope or above
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ defined in: Root › AdminScope › RequestScope
        └─ fix: branch RequestScope from a branch of Root › AdminScope
                or define it with registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
                or in defineScope(SessionScope.self)
        """,
      line: "FeaturesScopeUndefined: RequestScope is not defined in SessionScope or above (\(site(line)))")
  }

  @Test func aScopeDefinedAtTheRootIsNeverUndefinedBelowIt() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
      registry.defineScope(RequestScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: Request(id: 1))
    try request.require(RequestScope.self)
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) { try session.require(RequestScope.self) }
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeUndefined: RequestScope is not on this branch's path
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ defined in: Root › RequestScope
        └─ fix: require it in a branch of RequestScope or below: features.branch(RequestScope.self, context: ...)
        """,
      line: "FeaturesScopeUndefined: RequestScope is not on this branch's path (\(site(line)))")
  }

  @Test func branchingAScopeDefinedNowhereSaysHowToDefineIt() throws {
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) { try root.branch(AdminScope.self) }
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeUndefined: AdminScope is not defined in Root
        ├─ requested at: \(site(line))
        ├─ scope: Root
        └─ fix: define it with registry.defineScope(AdminScope.self) { ... } in FeaturesRoot
        """,
      line: "FeaturesScopeUndefined: AdminScope is not defined in Root (\(site(line)))")
  }

  @Test func requiringAScopeThatIsNotOnThePathShowsTheBranchesThatReachIt() throws {
    let line = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) { try root.require(RequestScope.self) }
    expectRenderings(
      of: error,
      tree: """
        FeaturesScopeUndefined: RequestScope is not on this branch's path
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ defined in: Root › SessionScope › RequestScope
        └─ fix: require it in a branch of RequestScope or below: features.branch(SessionScope.self, context: ...).branch(RequestScope.self, context: ...)
        """,
      line: "FeaturesScopeUndefined: RequestScope is not on this branch's path (\(site(line)))")
  }
}
