import Arbor
import Testing

/// The app requests Checkout, whose loader requests Pricing, whose loader requests an undefined
/// TaxTable: the error shows app → Checkout → Pricing → TaxTable with the site of every request.
@Suite struct ResolutionPathTests {
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
  }

  @Test func aFailureThreeLoadsDeepShowsEveryStepAndItsRequestSite() throws {
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Checkout.self) }
    let checkoutRegistered = site(base + 2)
    let pricingRequested = site(base + 4)
    let pricingRegistered = site(base + 7)
    let taxTableRequested = site(base + 9)
    expectRenderings(
      of: error,
      tree: """
        FeatureLoadingFailed: could not load Checkout
        ├─ requested at: \(site(line))
        ├─ scope: Root
        ├─ path: Checkout → Pricing → TaxTable
        ├─ implementation: Checkout.live() registered at \(checkoutRegistered) in Root
        └─ cause: FeatureLoadingFailed: could not load Pricing
           ├─ requested at: \(pricingRequested)
           ├─ implementation: Pricing.live() registered at \(pricingRegistered) in Root
           └─ cause: FeatureUndefined: no implementation of TaxTable
              ├─ requested at: \(taxTableRequested)
              ├─ searched: Root
              └─ fix: register a loader for TaxTable with registry.use(...) in FeaturesRoot
        """,
      asciiTree: """
        FeatureLoadingFailed: could not load Checkout
        |- requested at: \(site(line))
        |- scope: Root
        |- path: Checkout -> Pricing -> TaxTable
        |- implementation: Checkout.live() registered at \(checkoutRegistered) in Root
        `- cause: FeatureLoadingFailed: could not load Pricing
           |- requested at: \(pricingRequested)
           |- implementation: Pricing.live() registered at \(pricingRegistered) in Root
           `- cause: FeatureUndefined: no implementation of TaxTable
              |- requested at: \(taxTableRequested)
              |- searched: Root
              `- fix: register a loader for TaxTable with registry.use(...) in FeaturesRoot
        """,
      line: "FeatureLoadingFailed: could not load Checkout (\(site(line)))"
        + " ← FeatureLoadingFailed: could not load Pricing (\(pricingRequested))"
        + " ← FeatureUndefined: no implementation of TaxTable (\(taxTableRequested))")
  }

  @Test func thePathIsATypedFactWithTheSiteOfEveryStep() throws {
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Checkout.self) }
    #expect(error?.diagnostic.path.map(\.feature) == ["Checkout", "Pricing", "TaxTable"])
    #expect(error?.diagnostic.path.map { $0.location?.description } == [site(line), site(base + 4), site(base + 9)])
  }

  @Test func theSameFailureInsideALoaderOfAnotherFeatureIsOneLevelDeeper() throws {
    let line = #line + 1
    let error = #expect(throws: FeatureLoadingFailed.self) { try root.instance(of: Pricing.self) }
    #expect(error?.diagnostic.path.map(\.feature) == ["Pricing", "TaxTable"])
    #expect(
      String(describing: error!) == "FeatureLoadingFailed: could not load Pricing (\(site(line)))"
        + " ← FeatureUndefined: no implementation of TaxTable (\(site(base + 9)))")
  }
}
