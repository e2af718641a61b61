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
    // A failure would end it with exit(1), its diagnostic tree on standard error.
    #expect(child.status == 0, "main() failed:\n\(child.standardError)")
    #expect(!child.crashed)
  }

  @Test func aFailureIsThrownToMainNotCrashed() async throws {
    let registered = #line + 2
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(Greeter.live()) }
    }
    let error = try await #require(throws: FeatureLoadingFailed.self) { try await GreetingsApp.run(root) }
    #expect(
      String(describing: error)
        == "FeatureLoadingFailed: could not load Greeter (ArborDocsTests/EntryPointSamples.swift:24)"
        + " ← FeatureUndefined: no implementation of Printer (ArborDocsTests/QuickStart.swift:40)")
    // What `main()` writes to standard error before it exits with 1.
    #expect(
      String(reflecting: error) == """
        FeatureLoadingFailed: could not load Greeter
        ├─ requested at: ArborDocsTests/EntryPointSamples.swift:24
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ path: Greeter → Printer
        ├─ implementation: Greeter.live() registered at \
        ArborDocsTests/EntryPointTests.swift:\(registered) in SessionScope
        └─ cause: FeatureUndefined: no implementation of Printer
           ├─ requested at: ArborDocsTests/QuickStart.swift:40
           ├─ searched: SessionScope, Root
           └─ fix: register a loader for Printer with registry.use(...) in FeaturesRoot
                   or in defineScope(SessionScope.self)
        """)
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
