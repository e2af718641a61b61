import Arbor
import ArborDemoFeatures
import Testing

@Suite struct RegistrationTests {
  struct LiveProfile: FeatureImplementation {
    let session: Session
    init(context: NoContext, features: Features) throws {
      session = try features.context(for: SessionScope.self)
    }
    var instance: Profile { Profile(user: { [session] in session.user }) }
  }

  struct TaggedImplementation: FeatureImplementation {
    let tag: String
    init(context: String, features: Features) throws { tag = context }
    var instance: Tagged { Tagged(tag: "implemented \(tag)") }
  }

  @Test func implementationTypesRegisterWithTheLifetimeOfTheirFeature() throws {
    let root = FeaturesRoot { registry in
      registry.use(TaggedImplementation.self)
      registry.defineScope(SessionScope.self) { registry in
        registry.use(LiveProfile.self)
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Profile.self).user() == "ann")
    #expect(try session.instance(of: Tagged.self, context: "x").tag == "implemented x")
  }

  @Test func loadersKeepTheirNameAndWhereTheyWereWritten() {
    let line: UInt = #line + 1
    let loader: FeatureLoader = .disposable { _ in Printer(print: { _ in }) }
    #expect(loader.implementation == "Printer.loadersKeepTheirNameAndWhereTheyWereWritten()")
    #expect(loader.location.description == "ArborTests/RegistrationTests.swift:\(line)")
    #expect(FeatureLoader.implementation(TaggedImplementation.self).implementation == "TaggedImplementation")
  }

  @Test func registeringAFeatureTwiceInOneScopeFailsEveryRequestWithBothSites() throws {
    let first: UInt = #line + 4
    let second: UInt = #line + 4
    let (root, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.disposable(implementation: "console") { _ in Printer(print: { _ in }) })
        registry.use(.disposable(implementation: "silent") { _ in Printer(print: { _ in }) })
        registry.use(Clock(now: { 1 }))
      }
    }
    #expect(reports.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])  // reported as the root is built
    let error = #expect(throws: FeatureRegistrationConflict.self) { try root.instance(of: Printer.self) }
    #expect(error?.feature == Printer.self)
    #expect(
      error?.diagnostic.notes == [
        .init(
          "registrations",
          "Printer.console at ArborTests/RegistrationTests.swift:\(first)\n"
            + "Printer.silent at ArborTests/RegistrationTests.swift:\(second)")
      ])
    #expect(try root.instance(of: Clock.self).now() == 1)  // other features are unaffected
  }

  @Test func aScopeMayReplaceAnAncestorsRegistrationWithoutConflict() throws {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Counter(name: "root", serial: 0) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: 0) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Counter.self).name == "session")
  }

  @Test func definingAScopeTwiceMergesTheDefinitions() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "session", serial: 0) })
      }
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { _ in Other(serial: 1) })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Counter.self).name == "session")
    #expect(try session.instance(of: Other.self).serial == 1)
  }
}
