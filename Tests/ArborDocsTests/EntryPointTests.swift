import Arbor
import ArborTestSupport
import Testing

// The entry point of the catalog's Getting started article (Sources/Core/Arbor.docc/GettingStarted.md),
// run: the article marks `GreetingsApp` `@main`, which a test target cannot.
@Suite struct EntryPointSamplesTests {
  /// `main()` ends its process, with `exit(1)`, when it fails: it runs in a child process of this test
  /// binary, whose output and status the test reads (Swift Testing reports on standard error).
  @Test(.enabled(if: ChildProcess.isAvailable, "needs to run this test binary as a child process"))
  func theAppGreetsAndEndsWithoutAFailure() async throws {
    let child = try await ChildProcess.runChild("EntryPointChild")
    #expect(child.standardOutput == "Hello ann\n")
    #expect(child.status == 0)
    #expect(!child.crashed)
    // Where `main()` writes a failure's diagnostic tree.
    #expect(!child.standardError.contains("Feature"), "main() failed:\n\(child.standardError)")
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

/// What ``EntryPointSamplesTests/theAppGreetsAndEndsWithoutAFailure()`` runs in its child process,
/// and nowhere else.
@Suite(.enabled(if: ChildProcess.runs("EntryPointChild"), "EntryPointSamplesTests runs it in a child process"))
struct EntryPointChild {
  @Test func main() async {
    await GreetingsApp.main()
  }
}
