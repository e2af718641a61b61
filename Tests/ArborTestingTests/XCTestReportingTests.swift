import ArborTestSupport
import ArborTesting
import Foundation
import Testing

/// Under XCTest, an unpatched placeholder is an XCTest failure; outside a test case it is not.
///
/// Linux has no `XCTExpectFailure`, so these tests run the XCTest cases of
/// ``UnpatchedPlaceholderXCTests`` in a child process: there they fail for real, and an
/// `XCTestObservation` in the child writes each failure it observes for the test to check.
@Suite(.enabled(if: ChildProcess.isAvailable, "needs to run this test binary as a child process"))
struct XCTestReportingTests {
  @Test func anUnpatchedPlaceholderInAnXCTestCaseIsOneXCTestFailureWithTheDiagnostic() async throws {
    let child = try await ChildProcess.runXCTest(
      "ArborTestingTests.UnpatchedPlaceholderXCTests", environment: ["ARBOR_XCTEST_CHILD": "report"])
    let failures = try child.lines(after: "ARBOR-XCTEST-FAILURE").map { line in
      try JSONDecoder().decode(FailureObserver.Failure.self, from: Data(line.utf8))
    }
    #expect(
      failures.map(\.test) == [
        "UnpatchedPlaceholderXCTests.test1UnpatchedVoidMemberInTheFirstTestCase",
        "UnpatchedPlaceholderXCTests.test2UnpatchedValueMemberInALaterTestCase",
      ])
    #expect(
      failures.map(\.description) == [
        // The first use of ArborTesting in the process is inside this test case: reported by XCTFail.
        "failed - " + unimplementedIssue("Printer.print", at: PlaceholderSite.printer),
        // Once a test case is known to run, the failure is recorded on it as it is.
        unimplementedIssue("Clock.now", at: PlaceholderSite.clock),
      ])
    // Both are attributed to the test: where it made its container.
    #expect(failures.map { "\($0.file ?? ""):\($0.line)" } == UnpatchedPlaceholderXCTests.containerSites)
    #expect(child.standardOutput.contains("Executed 2 tests, with 2 failures (0 unexpected)"))
    #expect(child.status == 1)
    #expect(!child.crashed)
  }

  @Test func outsideATestCaseAValuePlaceholderWarnsOnStandardErrorAndReturnsItsPlaceholder() async throws {
    let child = try await ChildProcess.runXCTest(
      "ArborTestingTests.UnpatchedPlaceholderXCTests", environment: ["ARBOR_XCTEST_CHILD": "report"])
    #expect(child.lines(after: "ARBOR-OUTSIDE-VALUE") == ["0.0"])
    #expect(
      child.standardError.contains(
        "warning: " + unimplementedReport("Clock.now", at: PlaceholderSite.clock) + "\n"))
  }

  @Test func outsideATestCaseAVoidPlaceholderReportsOnStandardErrorAndReturns() async throws {
    let child = try await ChildProcess.runXCTest(
      "ArborTestingTests.UnpatchedPlaceholderXCTests", environment: ["ARBOR_XCTEST_CHILD": "void"])
    #expect(!child.crashed)
    #expect(child.lines(after: "ARBOR-OUTSIDE-VOID") == ["returned"])
    #expect(child.lines(after: "ARBOR-XCTEST-FAILURE").isEmpty)
    #expect(
      child.standardError.contains(
        "error: " + unimplementedReport("Printer.print", at: PlaceholderSite.printer) + "\n"))
  }
}
