import Arbor
import ArborDemoFeatures
import Testing

/// Each kind of bad input is a typed error naming the feature or scope and the request's site.
@Suite struct BadInputTests {
  let root = FeaturesRoot { registry in
    registry.use(.cacheable { _ -> Counter in throw Boom() })
    registry.defineScope(SessionScope.self) { registry in
      registry.use(
        .cacheable { features in
          _ = try features.context(for: RequestScope.self)
          return Other(serial: 0)
        })
    }
  }

  func site(_ line: UInt) -> String { "ArborTests/BadInputTests.swift:\(line)" }

  @Test func anUndefinedFeature() throws {
    let line: UInt = #line + 1
    let error = #expect(throws: FeatureUndefined.self) { try root.instance(of: Printer.self) }
    #expect(error?.feature == Printer.self)
    #expect(error?.diagnostic.location?.description == site(line))
    #expect(error?.description == "FeatureUndefined: no implementation of Printer (\(site(line)))")
  }

  @Test func branchingAnUndefinedScope() throws {
    let line: UInt = #line + 1
    let error = #expect(throws: FeaturesScopeUndefined.self) { try root.branch(AdminScope.self) }
    #expect(error?.scope == AdminScope.self)
    #expect(error?.description == "FeaturesScopeUndefined: AdminScope is not defined in Root (\(site(line)))")
  }

  @Test func aMissingScopeContext() throws {
    let line: UInt = #line + 1
    let error = #expect(throws: FeaturesScopeContextUnavailable.self) { try root.context(for: SessionScope.self) }
    #expect(error?.scope == SessionScope.self)
    #expect(error?.description == "FeaturesScopeContextUnavailable: no context for SessionScope (\(site(line)))")
  }

  @Test func aMissingScopeContextInsideALoader() throws {
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let error = #expect(throws: FeatureLoadingFailed.self) { try session.instance(of: Other.self) }
    let cause = try #require(error?.cause as? FeaturesScopeContextUnavailable)
    #expect(ObjectIdentifier(cause.scope) == ObjectIdentifier(RequestScope.self))
    #expect(cause.diagnostic.location?.fileID.description == "ArborTests/BadInputTests.swift")
  }

  @Test func aCycle() throws {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { features in try features.instance(of: Alpha.self) })
    }
    let line: UInt = #line + 1
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Alpha.self) }
    #expect(error?.diagnostic.path.first?.location?.description == site(line))
    #expect(error?.description.hasPrefix("CircularDependency: Alpha requires itself") == true)
  }

  @Test func aThrowingLoaderWithItsCause() throws {
    let line: UInt = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Counter.self) }
    #expect(error?.cause is Boom)
    #expect(error?.description == "FeatureLoadingFailed: could not load Counter (\(site(line))) ← Boom: boom")
  }
}
