// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "Properties in tests" (and Sources/Core/Arbor.docc/Properties.md, "Testing"). `GreetingLocale`
// is the demo's (ArborDemoFeatures).
import ArborDemoFeatures
import ArborTesting
import Testing

/// A banner whose text is in the locale of the branch it is loaded in.
struct Banner: CacheableFeature {
  var text: String
  static var placeholder: Banner { Banner(text: "") }
}

extension Banner {
  static func localized() -> FeatureLoader {
    .cacheable { features in Banner(text: features[GreetingLocale.self] == "fr" ? "Bienvenue" : "Welcome") }
  }
}

@Suite struct PropertiesTest {
  @Test func aLoaderUnderTestReadsTheContainersProperties() throws {
    let features = TestFeatures()
    features[GreetingLocale.self] = "fr"  // as on a real branch
    let banner: Banner = try features.load(Banner.localized())
    #expect(banner.text == "Bienvenue")
  }

  @Test func aCopyOfATreeNeverChangesTheTree() throws {
    let root = FeaturesRoot { registry in
      registry.set(GreetingLocale.self, to: "fr")
      registry.use(Banner.localized())
    }
    let copy = TestFeatures(root)  // reads the tree's registry values
    copy[GreetingLocale.self] = "en"
    #expect(try copy.instance(of: Banner.self).text == "Welcome")
    #expect(try root.instance(of: Banner.self).text == "Bienvenue")
  }
}
