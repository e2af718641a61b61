import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// `instanceIfDefined` is `nil` only when no registration is visible; `context(ifPresent:)` is `nil`
/// only when no branch of the scope is on the path. Every other failure still throws.
@Suite struct IfDefinedTests {
  struct Holder: CacheableFeature {
    var features: Features
    static var placeholder: Holder { fatalError("not used") }
  }

  static func root() -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 1 }))
      registry.use(.cacheable { _ in Counter(name: "root", serial: 1) })
      registry.use(.disposable { (tag: String, _) in Tagged(tag: tag) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { (id: Int, _) in Account(id: id, serial: 0) })
        registry.use(.cacheable { features in Holder(features: features) })
        registry.use(.cacheable { _ async in Other(serial: 2) })
        registry.use(.cacheable { _ -> Alpha in throw Boom() })
        registry.use(
          .disposable { features -> Gamma in
            _ = try features.instance(of: Printer.self)
            return Gamma()
          })
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
  }

  @Test func nilOnlyWhenNoRegistrationIsVisible() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 1)
    #expect(try root.instanceIfDefined(of: Printer.self) == nil)
    #expect(try root.instanceIfDefined(of: Account.self, context: 1) == nil)  // registered below, not here
    #expect(try root.instanceIfDefined(of: Counter.self)?.serial == 1)
    #expect(try root.instanceIfDefined(of: Clock.self)?.now() == 1)
    #expect(try root.instanceIfDefined(of: Tagged.self, context: "x")?.tag == "x")
    #expect(try session.instanceIfDefined(of: Account.self, context: 7)?.id == 7)
    #expect(try request.instanceIfDefined(of: Account.self, context: 8)?.id == 8)  // lookup walks up
    #expect(try request.instanceIfDefined(of: Counter.self)?.name == "root")
    let inferred: Counter? = try root.instanceIfDefined()
    #expect(inferred?.serial == 1)
  }

  @Test func everyOtherFailureStillThrows() throws {
    let session = try Self.root().branch(SessionScope.self, context: Session(user: "ann"))
    let failed = #expect(throws: FeatureLoadingFailed.self) { try session.instanceIfDefined(of: Alpha.self) }
    #expect(failed?.cause is Boom)
    // Undefined inside a loader is a failure of that load, not "undefined" of the request.
    let inner = #expect(throws: FeatureLoadingFailed.self) { try session.instanceIfDefined(of: Gamma.self) }
    #expect(inner?.cause is FeatureUndefined)
    #expect(throws: FeatureRequiresAwait.self) { try session.instanceIfDefined(of: Other.self) }
  }

  @Test func aCycleAndAConflictStillThrow() throws {
    let cyclic = FeaturesRoot { registry in
      registry.use(
        .cacheable { features -> Alpha in
          _ = try features.instance(of: Beta.self)
          return Alpha()
        })
      registry.use(
        .cacheable { features -> Beta in
          _ = try features.instance(of: Alpha.self)
          return Beta()
        })
    }
    #expect(throws: CircularDependency.self) { try cyclic.instanceIfDefined(of: Alpha.self) }
    let (conflicted, reports) = IssueReporting.capturingReports {
      FeaturesRoot { registry in
        registry.use(.cacheable { _ in Alpha() })
        registry.use(.cacheable { _ in Alpha() })
      }
    }
    #expect(reports.map(\.diagnostic.kind) == ["FeatureRegistrationConflict"])  // reported as the root is built
    #expect(throws: FeatureRegistrationConflict.self) { try conflicted.instanceIfDefined(of: Alpha.self) }
  }

  @Test func releasedFeaturesThrow() throws {
    var kept: Features?
    do {
      let session = try Self.root().branch(SessionScope.self, context: Session(user: "ann"))
      kept = try session.instance(of: Holder.self).features
    }
    let features = try #require(kept)
    #expect(throws: FeaturesReleased.self) { try features.instanceIfDefined(of: Printer.self) }
    #expect(throws: FeaturesReleased.self) { try features.context(ifPresent: SessionScope.self) }
    #expect(throws: FeaturesReleased.self) { try features.context(ifPresent: RequestScope.self) }
  }

  @Test func asyncRequestsRunAsyncLoaders() async throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instanceIfDefined(of: Other.self)?.serial == 2)
    #expect(try await root.instanceIfDefined(of: Other.self) == nil)
    #expect(try await root.instanceIfDefined(of: Printer.self) == nil)
    #expect(try await session.instanceIfDefined(of: Account.self, context: 3)?.id == 3)
    #expect(try await root.instanceIfDefined(of: Clock.self)?.now() == 1)
    let failed = await #expect(throws: FeatureLoadingFailed.self) {
      try await session.instanceIfDefined(of: Alpha.self)
    }
    #expect(failed?.cause is Boom)
    // The synchronous request, in an async function, still finds the loaded instance.
    #expect(try synchronously { try session.instanceIfDefined(of: Other.self) }?.serial == 2)
  }

  @Test func validationDoesNotCountAnOptionalFeatureAsMissing() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (_: String, features) in
          let printer = try features.instanceIfDefined(of: Printer.self)  // nothing registers it
          _ = try features.instanceIfDefined(of: Counter.self)  // registered: checked as a request
          return Tagged(tag: printer == nil ? "quiet" : "printing")
        })
      registry.use(.cacheable { _ in Counter(name: "root", serial: 1) })
    }
    let validation = await root.validate()
    #expect(validation.problems.isEmpty)
    #expect(try synchronously { try root.instance(of: Tagged.self, context: "") }.tag == "quiet")
  }

  @Test func anOptionalContextIsNilOnlyWhenTheScopeIsNotOnThePath() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 9)
    #expect(try root.context(ifPresent: SessionScope.self) == nil)
    #expect(try session.context(ifPresent: SessionScope.self)?.user == "ann")
    #expect(try session.context(ifPresent: RequestScope.self) == nil)
    #expect(try request.context(ifPresent: SessionScope.self)?.user == "ann")
    #expect(try request.context(ifPresent: RequestScope.self) == 9)
  }

  @Test func aLoaderReadsAnOptionalContext() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable { (_: String, features) in
          Tagged(tag: try features.context(ifPresent: SessionScope.self)?.user ?? "anonymous")
        })
      registry.defineScope(SessionScope.self) { _ in }
    }
    #expect(try root.instance(of: Tagged.self, context: "").tag == "anonymous")
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try session.instance(of: Tagged.self, context: "").tag == "ann")
  }
}
