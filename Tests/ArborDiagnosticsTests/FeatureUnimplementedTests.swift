import Arbor
import Testing

/// Calling a placeholder member names the member, where the placeholder is written, and how to fix it.
@Suite struct FeatureUnimplementedTests {
  /// Outside a test (a capture stands in for the installed reporter), the fix is an implementation.
  @Test func aThrowingPlaceholderThrowsItsDiagnostic() throws {
    let line = #line + 1
    let greet: @Sendable () throws -> Void = unimplemented("Greeter.greet")
    let (thrown, reports) = IssueReporting.capturingReports {
      #expect(throws: FeatureUnimplemented.self) { try greet() }
    }
    let error = try #require(thrown)
    #expect(reports == [IssueReporting.Report(error.diagnostic, severity: .failure, site: error.location)])
    #expect(error.member == "Greeter.greet")
    expectRenderings(
      of: error,
      tree: """
        FeatureUnimplemented: Unimplemented: Greeter.greet
        ├─ placeholder at: \(site(line))
        └─ fix: register an implementation of Greeter with registry.use(...) in the tree it was resolved from,
                or implement Greeter.greet in the one registered there
        """,
      line: "FeatureUnimplemented: Unimplemented: Greeter.greet")
  }
}
