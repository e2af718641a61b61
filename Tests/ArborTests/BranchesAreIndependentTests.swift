import Arbor
import ArborDemoFeatures
import Testing

@Suite struct BranchesAreIndependentTests {
  static func root(_ loads: Tally) -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: loads.next()) })
      }
    }
  }

  @Test func twoBranchesOfOneScopeShareNothingButTheirAncestors() throws {
    let loads = Tally()
    let root = Self.root(loads)
    let first = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let second = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let a: Counter = try first.instance()
    let b: Counter = try second.instance()
    #expect(a.serial != b.serial)
    #expect(try first.instance(of: Counter.self).serial == a.serial)
    #expect(loads.value == 2)
  }

  @Test func rootsLiveSideBySide() throws {
    let loads = Tally()
    let one = Self.root(loads)
    let two = Self.root(loads)
    let a: Counter = try one.branch(SessionScope.self, context: Session(user: "ann")).instance()
    let b: Counter = try two.branch(SessionScope.self, context: Session(user: "ann")).instance()
    #expect(a.serial != b.serial)
  }

  @Test func scopesBranchOnlyWhereTheyAreDefined() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
    let error = #expect(throws: FeaturesScopeUndefined.self) { try root.branch(RequestScope.self, context: 1) }
    #expect(error?.scope == RequestScope.self)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 1)
    #expect(try request.context(for: RequestScope.self) == 1)
    #expect(try request.context(for: SessionScope.self) == Session(user: "ann"))
    try request.require(SessionScope.self)
    try request.require(RootFeaturesScope.self)
    #expect(throws: FeaturesScopeUndefined.self) { try session.require(RequestScope.self) }
  }
}
