import Arbor
import ArborDemoFeatures
import Testing

/// Properties cascade: a value set on a branch, else on its nearest ancestor that sets one, else
/// the nearest registry value, else the default.
@Suite struct PropertyCascadeTests {
  /// Root 10 s, sessions 5 s, a nested admin scope and a root-defined request scope that set nothing.
  static func root(_ loads: Tally = Tally()) -> Features {
    FeaturesRoot { registry in
      registry.set(RequestTimeout.self, to: .seconds(10))
      registry.use(
        .cacheable { _ in
          loads.next()
          return Counter(name: "root", serial: 0)
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.set(RequestTimeout.self, to: .seconds(5))
        registry.defineScope(AdminScope.self) { _ in }
      }
      registry.defineScope(RequestScope.self) { _ in }
    }
  }

  func session(_ root: Features, _ user: String) throws -> Features {
    try root.branch(SessionScope.self, context: Session(user: user))
  }

  @Test func nothingSetReadsTheDefaultAndLoadsNothing() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          loads.next()
          return Counter(name: "root", serial: 0)
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    #expect(root[RequestTimeout.self] == .seconds(30))
    #expect(try session(root, "ann")[GreetingLocale.self] == "en")
    #expect(root[Retry.self].attempts == 1)
    #expect(loads.value == 0)
    #expect(Self.root(loads)[RequestTimeout.self] == .seconds(10))
    #expect(loads.value == 0)
  }

  @Test func registryValuesCascadeAndTheNearestWins() throws {
    let root = Self.root()
    let session = try session(root, "ann")
    #expect(root[RequestTimeout.self] == .seconds(10))
    #expect(session[RequestTimeout.self] == .seconds(5))
    #expect(try session.branch(AdminScope.self)[RequestTimeout.self] == .seconds(5))  // nested: the session's
    #expect(try root.branch(RequestScope.self, context: 1)[RequestTimeout.self] == .seconds(10))
    // A root-defined scope branched from a session: the session's registry is the nearest.
    #expect(try session.branch(RequestScope.self, context: 1)[RequestTimeout.self] == .seconds(5))
  }

  @Test func aScopeDefinedAtTheRootUsesItsOwnRegistryValueWhereverItIsBranched() throws {
    let root = FeaturesRoot { registry in
      registry.set(RequestTimeout.self, to: .seconds(10))
      registry.defineScope(SessionScope.self) { registry in
        registry.set(RequestTimeout.self, to: .seconds(5))
      }
      registry.defineScope(RequestScope.self) { registry in
        registry.set(RequestTimeout.self, to: .seconds(2))
      }
    }
    let session = try session(root, "ann")
    #expect(try session.branch(RequestScope.self, context: 1)[RequestTimeout.self] == .seconds(2))
    #expect(try root.branch(RequestScope.self, context: 1)[RequestTimeout.self] == .seconds(2))
  }

  @Test func aSetIsSeenByItsBranchAndBelowButNeverBySiblingsOrAncestors() throws {
    let root = Self.root()
    let ann = try session(root, "ann")
    let bob = try session(root, "bob")
    let annAdmin = try ann.branch(AdminScope.self)
    _ = (bob[RequestTimeout.self], annAdmin[RequestTimeout.self])  // read before the set: snapshots exist
    ann[RequestTimeout.self] = .seconds(1)
    #expect(ann[RequestTimeout.self] == .seconds(1))
    #expect(annAdmin[RequestTimeout.self] == .seconds(1))  // made before the set
    #expect(try ann.branch(AdminScope.self)[RequestTimeout.self] == .seconds(1))  // made after it
    #expect(bob[RequestTimeout.self] == .seconds(5))
    #expect(root[RequestTimeout.self] == .seconds(10))
  }

  @Test func aSetOnTheRootReachesEveryBranchThatDoesNotSetItsOwn() throws {
    let root = Self.root()
    let ann = try session(root, "ann")
    let bob = try session(root, "bob")
    bob[RequestTimeout.self] = .seconds(7)
    root[RequestTimeout.self] = .seconds(3)
    #expect(root[RequestTimeout.self] == .seconds(3))
    // A set on an ancestor wins over a registry value, even a nearer one.
    #expect(ann[RequestTimeout.self] == .seconds(3))
    #expect(try ann.branch(AdminScope.self)[RequestTimeout.self] == .seconds(3))
    #expect(bob[RequestTimeout.self] == .seconds(7))  // shadows it
    #expect(try session(root, "cid")[RequestTimeout.self] == .seconds(3))
  }

  @Test func theNearestSetWinsThenTheNearestRegistryValueThenTheDefault() throws {
    let root = Self.root()
    let session = try session(root, "ann")
    let admin = try session.branch(AdminScope.self)
    let request = try admin.branch(RequestScope.self, context: 1)
    #expect(request[RequestTimeout.self] == .seconds(5))  // the session's registry
    root[RequestTimeout.self] = .seconds(3)
    #expect(request[RequestTimeout.self] == .seconds(3))  // a set on an ancestor
    session[RequestTimeout.self] = .seconds(4)
    #expect(request[RequestTimeout.self] == .seconds(4))  // a nearer set
    request[RequestTimeout.self] = .seconds(6)
    #expect(request[RequestTimeout.self] == .seconds(6))  // its own
    root[RequestTimeout.self] = .seconds(8)
    #expect(request[RequestTimeout.self] == .seconds(6))
    #expect(admin[RequestTimeout.self] == .seconds(4))
    #expect(root[GreetingLocale.self] == "en")  // another property: the default
  }

  @Test func everyPropertyIsLookedUpOnItsOwn() throws {
    let root = Self.root()
    let session = try session(root, "ann")
    session[GreetingLocale.self] = "fr"
    session[Retry.self] = Retry.Policy(attempts: 3)
    #expect(session[RequestTimeout.self] == .seconds(5))
    #expect(session[GreetingLocale.self] == "fr")
    #expect(session[Retry.self].attempts == 3)
    root[GreetingLocale.self] = "de"
    #expect(session[GreetingLocale.self] == "fr")
    #expect(root[GreetingLocale.self] == "de")
    #expect(root[Retry.self].attempts == 1)
  }

  @Test func manySetsOnOneBranchEachReadAtOnce() throws {
    let root = Self.root()
    let session = try session(root, "ann")
    for seconds in 1...200 {
      session[RequestTimeout.self] = .seconds(seconds)
      #expect(session[RequestTimeout.self] == .seconds(seconds))
      #expect(root[RequestTimeout.self] == .seconds(10))
    }
  }

  @Test func treesShareNothing() throws {
    let first = Self.root()
    let second = Self.root()
    first[RequestTimeout.self] = .seconds(1)
    #expect(second[RequestTimeout.self] == .seconds(10))
    #expect(try session(second, "ann")[RequestTimeout.self] == .seconds(5))
  }
}
