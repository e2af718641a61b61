import Arbor
import ArborDemoFeatures
import Testing

@Suite struct LookupWalksUpTests {
  func root() -> Features {
    FeaturesRoot { registry in
      registry.use(.cacheable { _ in Counter(name: "root", serial: 0) })
      registry.use(.disposable { (tag: String, _) in Tagged(tag: "root \(tag)") })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: 0) })
        registry.defineScope(RequestScope.self) { _ in }
      }
      registry.defineScope(AdminScope.self) { _ in }
    }
  }

  @Test func aBranchResolvesFromItsAncestorsUpToTheRoot() throws {
    let request = try root().branch(SessionScope.self, context: Session(user: "ann")).branch(
      RequestScope.self, context: 1)
    let tagged: Tagged = try request.instance(context: "x")
    #expect(tagged.tag == "root x")
  }

  @Test func theNearestRegistrationWins() throws {
    let root = root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 1)
    #expect(try session.instance(of: Counter.self).name == "session")
    #expect(try request.instance(of: Counter.self).name == "session")
  }

  @Test func aScopeReplacesARootImplementationForItsBranchesOnly() throws {
    let root = root()
    _ = try root.branch(SessionScope.self, context: Session(user: "ann")).instance(of: Counter.self)
    #expect(try root.instance(of: Counter.self).name == "root")
    #expect(try root.branch(AdminScope.self).instance(of: Counter.self).name == "root")
  }

  @Test func staticFeaturesAreTheRegisteredValueEverywhere() throws {
    let root = FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let clock: Clock = try session.instance()
    #expect(clock.now() == 42)
  }
}
