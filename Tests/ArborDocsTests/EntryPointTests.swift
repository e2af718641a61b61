import Arbor
import Testing

// The entry point of the catalog's Getting started article (Sources/Core/Arbor.docc/GettingStarted.md),
// run: the article marks `GreetingsApp` `@main`, which a test target cannot.
@Suite struct EntryPointSamplesTests {
  @Test func theAppRunsToItsEnd() async {
    await GreetingsApp.main()  // a failure would end the test process with exit(1)
  }

  @Test func aFailureIsThrownToMainNotCrashed() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
    }
    let error = try await #require(throws: FeatureLoadingFailed.self) { try await GreetingsApp.run(root) }
    #expect(
      String(describing: error)
        == "FeatureLoadingFailed: could not load Greeter (ArborDocsTests/EntryPointSamples.swift:24)"
        + " ← FeatureUndefined: no implementation of Printer (ArborDocsTests/QuickStart.swift:40)")
  }
}
