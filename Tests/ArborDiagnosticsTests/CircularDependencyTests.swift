import Arbor
import Testing

/// A cycle shows the whole loop: the resolution path and the site of every request on it.
@Suite struct CircularDependencyTests {
  @Test func aLoopThroughTwoFeaturesShowsEveryRequest() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features in
          _ = try features.instance(of: Pricing.self)
          return Checkout.placeholder
        })
      registry.use(
        .disposable(implementation: "live()") { features in
          _ = try features.instance(of: Checkout.self)
          return Pricing.placeholder
        })
    }
    let line = #line + 1
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Checkout.self) }
    #expect(error?.path.map { String(describing: $0) } == ["Checkout", "Pricing", "Checkout"])
    expectRenderings(
      of: error,
      tree: """
        CircularDependency: Checkout requires itself through Pricing
        ├─ requested at: \(site(base + 9))
        ├─ scope: Root
        ├─ path: Checkout → Pricing → Checkout
        ├─ requests: Checkout at \(site(line))
        │            Pricing at \(site(base + 4))
        │            Checkout at \(site(base + 9))
        └─ fix: break the cycle: let Checkout or Pricing resolve the other when a member is called, not in its loader
        """,
      asciiTree: """
        CircularDependency: Checkout requires itself through Pricing
        |- requested at: \(site(base + 9))
        |- scope: Root
        |- path: Checkout -> Pricing -> Checkout
        |- requests: Checkout at \(site(line))
        |            Pricing at \(site(base + 4))
        |            Checkout at \(site(base + 9))
        `- fix: break the cycle: let Checkout or Pricing resolve the other when a member is called, not in its loader
        """,
      line: "CircularDependency: Checkout requires itself through Pricing (\(site(base + 9)))")
  }

  @Test func aLoopBelowOtherLoadsShowsThePathThatLedToIt() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features in
          _ = try features.instance(of: Pricing.self)
          return Checkout.placeholder
        })
      registry.use(
        .disposable(implementation: "live()") { features in
          _ = try features.instance(of: TaxTable.self)
          return Pricing.placeholder
        })
      registry.use(
        .cacheable(implementation: "live()") { features in
          _ = try features.instance(of: Pricing.self)
          return TaxTable.placeholder
        })
    }
    let line = #line + 1
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Checkout.self) }
    #expect(error?.path.map { String(describing: $0) } == ["Pricing", "TaxTable", "Pricing"])
    expectRenderings(
      of: error,
      tree: """
        CircularDependency: Pricing requires itself through TaxTable
        ├─ requested at: \(site(base + 14))
        ├─ scope: Root
        ├─ path: Checkout → Pricing → TaxTable → Pricing
        ├─ requests: Checkout at \(site(line))
        │            Pricing at \(site(base + 4))
        │            TaxTable at \(site(base + 9))
        │            Pricing at \(site(base + 14))
        └─ fix: break the cycle: let Pricing or TaxTable resolve the other when a member is called, not in its loader
        """,
      line: "CircularDependency: Pricing requires itself through TaxTable (\(site(base + 14)))")
  }

  @Test func aLoopThroughThreeFeaturesNamesThemAll() throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features in
          _ = try features.instance(of: Pricing.self)
          return Checkout.placeholder
        })
      registry.use(
        .disposable(implementation: "live()") { features in
          _ = try features.instance(of: TaxTable.self)
          return Pricing.placeholder
        })
      registry.use(
        .cacheable(implementation: "live()") { features in
          _ = try features.instance(of: Checkout.self)
          return TaxTable.placeholder
        })
    }
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Checkout.self) }
    #expect(error?.diagnostic.message == "Checkout requires itself through Pricing, TaxTable")
    #expect(
      error?.diagnostic.fix
        == "break the cycle: let one of Checkout, Pricing, TaxTable resolve the next when a member is called,"
        + " not in its loader")
  }

  @Test func aLoaderThatRequestsItsOwnFeature() throws {
    let base = #line
    let root = FeaturesRoot { registry in
      registry.use(
        .disposable(implementation: "live()") { features in
          try features.instance(of: Pricing.self)
        })
    }
    let line = #line + 1
    let error = #expect(throws: CircularDependency.self) { try root.instance(of: Pricing.self) }
    expectRenderings(
      of: error,
      tree: """
        CircularDependency: Pricing requires itself
        ├─ requested at: \(site(base + 4))
        ├─ scope: Root
        ├─ path: Pricing → Pricing
        ├─ requests: Pricing at \(site(line))
        │            Pricing at \(site(base + 4))
        └─ fix: Pricing's loader must not request Pricing; build it from other features
        """,
      line: "CircularDependency: Pricing requires itself (\(site(base + 4)))")
  }
}
