import Arbor
import Testing

// The samples of the catalog's article on scopes and branches
// (Sources/Core/Arbor.docc/ScopesAndBranches.md), compiled and run.

extension Printer {
  static func silent() -> FeatureLoader {
    .disposable { features in Printer(print: { _ in }) }
  }
}

func sessionTree() -> Features {
  FeaturesRoot { registry in
    registry.use(Printer.console())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Greeter.live())
      registry.use(Printer.silent())  // replaces the root's printer in session branches only
    }
    registry.defineScope(RequestScope.self) { _ in }  // defined at the root: branched anywhere
  }
}

func branchingASessionAndARequest(_ root: Features) throws -> String {
  let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
  let request = try session.branch(RequestScope.self, context: 7)
  let greeter: Greeter = try request.instance()  // the session's greeter, cached in the session
  let user = try request.context(for: SessionScope.self).user  // "ann": the nearest session
  try request.require(SessionScope.self)  // throws FeaturesScopeUndefined outside a session
  try greeter.greet()
  return user
}

@Suite struct ScopesGuideSamplesTests {
  @Test func theNearestRegistrationWins() throws {
    let root = sessionTree()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(root.which(Printer.self).implementation?.name == "Printer.console()")
    #expect(session.which(Printer.self).implementation?.name == "Printer.silent()")
  }

  @Test func aRequestBranchedFromASessionSeesTheSession() throws {
    let root = FeaturesRoot { registry in
      registry.use(Printer.silent())
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
      registry.defineScope(RequestScope.self) { _ in }
    }
    #expect(try branchingASessionAndARequest(root) == "ann")
    #expect(throws: FeaturesScopeUndefined.self) {
      try root.branch(RequestScope.self, context: 1).require(SessionScope.self)
    }
  }
}
