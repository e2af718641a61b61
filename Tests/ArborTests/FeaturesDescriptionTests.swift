import Arbor
import ArborDemoFeatures
import Testing

/// Printing features shows where they are, not their raw fields.
@Suite struct FeaturesDescriptionTests {
  struct Keeper: CacheableFeature {
    var features: Features
    static var placeholder: Keeper { fatalError("not used") }
  }

  @Test func featuresDescribeTheirScopePath() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { features in Keeper(features: features) })
        registry.defineScope(RequestScope.self) { _ in }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 7)
    #expect("\(root)" == "Root")
    #expect("\(session)" == "Root › SessionScope(Session(user: \"ann\"))")
    #expect("\(request)" == "Root › SessionScope(Session(user: \"ann\")) › RequestScope(7)")
    #expect("\(try session.instance(of: Keeper.self).features)" == "Root › SessionScope(Session(user: \"ann\"))")
  }

  @Test func releasedFeaturesSaySo() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(.cacheable { features in Keeper(features: features) })
      }
    }
    var kept: Keeper?
    do {
      kept = try root.branch(SessionScope.self, context: Session(user: "ann")).instance(of: Keeper.self)
    }
    #expect(kept.map { "\($0.features)" } == "Features(released)")
  }
}
