import ArborTesting
import Testing

/// `load` through features of a branch made by a loader, after that loader's branch was released,
/// fails as every request through them does.
@Suite struct LoadOnReleasedBranchTests {
  enum Outer: FeaturesScope { typealias Context = Int }
  enum Inner: FeaturesScope { typealias Context = Int }
  struct Keeper: CacheableFeature {
    var inner: Features
    static var placeholder: Keeper { fatalError("not used") }
  }
  struct Probe: DisposableFeature {
    var value: Int
    static var placeholder: Probe { Probe(value: -1) }
  }

  @Test func loadThroughABranchBelowAReleasedOneFailsAsEveryRequestDoes() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(Outer.self) { registry in
        registry.use(.cacheable { features in Keeper(inner: try features.branch(Inner.self, context: 1)) })
        registry.defineScope(Inner.self) { _ in }
      }
    }
    var inner: Features?
    do {
      let outer = try root.branch(Outer.self, context: 0)
      inner = try outer.instance(of: Keeper.self).inner
    }
    #expect(throws: FeaturesReleased.self) { try inner!.instance(of: Probe.self) }
    #expect(throws: FeaturesReleased.self) {
      let probe: Probe = try inner!.load(.disposable { _ in Probe(value: 1) })
      _ = probe
    }
  }
}
