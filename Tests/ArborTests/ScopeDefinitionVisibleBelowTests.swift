import Arbor
import ArborDemoFeatures
import Testing

/// A scope defined in a registry can be branched from a branch of that registry's scope and from any
/// branch below it; a nearer definition of the same scope replaces it there.
@Suite struct ScopeDefinitionVisibleBelowTests {
  /// Profile in a request says which session and which request it was loaded for.
  static func requestProfile() -> FeatureLoader {
    .cacheable { features in
      let session = try features.context(for: SessionScope.self)
      let request = try features.context(for: RequestScope.self)
      return Profile(user: { "\(session.user)#\(request)" })
    }
  }

  @Test func aScopeDefinedAtTheRootIsBranchedFromASessionAndSeesTheSession() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: loads.next()) })
      }
      registry.defineScope(RequestScope.self) { registry in
        registry.use(Self.requestProfile())
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 7)
    #expect(try request.instance(of: Profile.self).user() == "ann#7")
    #expect(try request.context(for: SessionScope.self) == Session(user: "ann"))
    let counter: Counter = try request.instance()
    #expect(counter.name == "session")
    #expect(try session.instance(of: Counter.self).serial == counter.serial)  // the session's own instance
    #expect(loads.value == 1)
  }

  @Test func theNearestDefinitionWins() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "root's request", serial: 0) })
      }
      registry.defineScope(AdminScope.self) { _ in }
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(RequestScope.self) { registry in
          registry.use(.cacheable { _ in Counter(name: "session's request", serial: 0) })
        }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let admin = try root.branch(AdminScope.self)
    let adminInSession = try session.branch(AdminScope.self)
    #expect(try root.branch(RequestScope.self, context: 1).instance(of: Counter.self).name == "root's request")
    #expect(try admin.branch(RequestScope.self, context: 1).instance(of: Counter.self).name == "root's request")
    #expect(try session.branch(RequestScope.self, context: 1).instance(of: Counter.self).name == "session's request")
    #expect(
      try adminInSession.branch(RequestScope.self, context: 1).instance(of: Counter.self).name == "session's request")
  }

  @Test func aScopeIsBranchedFromABranchOfItself() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(.cacheable { features in Counter(name: "request", serial: loads.next()) })
      }
    }
    let outer = try root.branch(RequestScope.self, context: 1)
    let inner = try outer.branch(RequestScope.self, context: 2)
    let innermost = try inner.branch(RequestScope.self, context: 3)
    #expect(try inner.context(for: RequestScope.self) == 2)
    #expect(try innermost.context(for: RequestScope.self) == 3)
    let serials = try [outer, inner, innermost].map { try $0.instance(of: Counter.self).serial }
    #expect(Set(serials).count == 3)  // each request branch caches its own
    #expect(try inner.instance(of: Counter.self).serial == serials[1])
    #expect(loads.value == 3)
  }

  @Test func theDerivedDefinitionIsSharedByEveryBranchOfTheScopeFromOneDefinition() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
      registry.defineScope(RequestScope.self) { registry in
        registry.use(.cacheable { features in Counter(name: "request", serial: loads.next()) })
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let first = try ann.branch(RequestScope.self, context: 1)
    let second = try ann.branch(RequestScope.self, context: 2)
    let third = try bob.branch(RequestScope.self, context: 3)
    for request in [first, second, first, second, third] { _ = try request.instance(of: Counter.self) }
    #expect(loads.value == 3)  // once per request branch
    #expect(try first.instance(of: Counter.self).serial != second.instance(of: Counter.self).serial)
    let here = SourceLocation()
    let definitions = try [first, second, third].map { ObjectIdentifier(try $0.branch(at: here).definition) }
    #expect(definitions[0] == definitions[1])
    #expect(definitions[1] == definitions[2])  // both sessions have one definition
    let fromRoot = ObjectIdentifier(try root.branch(RequestScope.self, context: 4).branch(at: here).definition)
    #expect(fromRoot != definitions[0])  // a different parent table
  }

  @Test func concurrentFirstBranchesAllGetOneDerivedDefinition() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { _ in }
      registry.defineScope(RequestScope.self) { registry in
        registry.use(Self.requestProfile())
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let definitions = Collected<ObjectIdentifier>()
    let users = Collected<String>()
    onThreads(8) { thread in
      guard let request = try? session.branch(RequestScope.self, context: thread),
        let branch = try? request.branch(at: SourceLocation()),
        let profile = try? request.instance(of: Profile.self)
      else { return }
      definitions.append(ObjectIdentifier(branch.definition))
      users.append(profile.user())
    }
    #expect(Set(users.all) == Set((0..<8).map { "ann#\($0)" }))
    #expect(definitions.all.count == 8)
    #expect(Set(definitions.all).count == 1)
  }

  @Test func lookupThroughADerivedDefinitionFindsTheNearestRegistration() throws {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Counter(name: "root", serial: 0) })
      registry.use(.cacheable { _ in Other(serial: 0) })
      registry.use(.disposable { _ in Printer(print: { _ in }) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: 0) })
        registry.use(.cacheable { _ in Other(serial: 1) })
      }
      registry.defineScope(RequestScope.self) { registry in
        registry.use(.cacheable { _ in Other(serial: 2) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 1)
    #expect(try request.instance(of: Counter.self).name == "session")  // the session's replaces the root's
    #expect(try request.instance(of: Other.self).serial == 2)  // the request's own replaces the session's
    _ = try request.instance(of: Printer.self)  // the root's
    #expect(throws: FeatureUndefined.self) { try request.instance(of: Account.self, context: 1) }
    #expect(try root.branch(RequestScope.self, context: 1).instance(of: Counter.self).name == "root")
  }

  @Test func aConflictInADerivedDefinitionStillFailsEveryRequest() throws {
    let (root, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.defineScope(SessionScope.self) { _ in }
        registry.defineScope(RequestScope.self) { registry in
          registry.use(.cacheable(implementation: "first") { _ in Counter(name: "first", serial: 0) })
          registry.use(.cacheable(implementation: "second") { _ in Counter(name: "second", serial: 0) })
        }
      }
    }
    #expect(reports.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])  // reported as the root is built
    let request = try root.branch(SessionScope.self, context: Session(user: "ann")).branch(
      RequestScope.self, context: 1)
    let error = #expect(throws: FeatureRegistrationConflict.self) { try request.instance(of: Counter.self) }
    #expect(error?.diagnostic.message == "Counter is registered 2 times in RequestScope")
    #expect(error?.diagnostic.scope.map(\.name) == ["Root", "SessionScope", "RequestScope"])
  }

  @Test func siblingBranchesAreUnaffected() throws {
    let loads = Tally()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: loads.next()) })
      }
      registry.defineScope(RequestScope.self) { registry in
        registry.use(Self.requestProfile())
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let annRequest = try ann.branch(RequestScope.self, context: 1)
    let bobRequest = try bob.branch(RequestScope.self, context: 1)
    #expect(try annRequest.instance(of: Profile.self).user() == "ann#1")
    #expect(try bobRequest.instance(of: Profile.self).user() == "bob#1")
    #expect(try annRequest.instance(of: Counter.self).serial == ann.instance(of: Counter.self).serial)
    #expect(try bobRequest.instance(of: Counter.self).serial == bob.instance(of: Counter.self).serial)
    #expect(loads.value == 2)
    #expect(throws: FeatureLoadingFailed.self) {
      try root.branch(RequestScope.self, context: 1).instance(of: Profile.self)
    }
  }
}
