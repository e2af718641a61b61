import Arbor
import ArborTestSupport
import Foundation
import Testing

/// A report made in a running test is that test's failure even when it is the first thing the
/// process does and the test never calls ArborTesting: linking ArborTesting is enough.
///
/// Each test runs one test of ``FirstReportSwiftTestingChild`` or ``FirstReportXCTestChild`` alone,
/// in a child process of this test binary, so that nothing before it used ArborTesting.
@Suite(.enabled(if: ChildProcess.isAvailable, "needs to run this test binary as a child process"))
struct FirstReportTests {
  /// The diagnostic the child reports, as this process renders it.
  func expectedReport() throws -> String {
    let reports = try IssueReporting.capturingReports { try FirstReportChild.dropABranchWithoutClosingIt() }.reports
    try #require(reports.map(\.kind) == ["TeardownSkipped"])
    return reports[0].diagnostic.renderedTree()
  }

  @Test func aSwiftTestingTestFailsWithTheReportWhenItIsTheFirstThingTheProcessDoes() async throws {
    let expected = try expectedReport()
    let child = try await ChildProcess.runSwiftTesting(
      "FirstReportSwiftTestingChild", environment: ["ARBOR_FIRST_REPORT": "swift-testing"])
    #expect(!child.crashed)
    #expect(child.status == 1)
    // Swift Testing writes its results to standard error: the issue, then its comment, each line
    // of it behind a marker.
    let output = child.standardError
    #expect(output.contains("Test aBranchDroppedWithoutCloseBeforeAnythingUsedArborTesting() recorded an issue"))
    #expect(output.contains(expected.split(separator: "\n").joined(separator: "\n  ")))
    #expect(output.contains("Test run with 1 test in 1 suite failed"))
    #expect(!output.contains("error: TeardownSkipped"), "reported on standard error instead")
  }

  @Test func anXCTestCaseFailsWithTheReportWhenItIsTheFirstThingTheProcessDoes() async throws {
    let expected = try expectedReport()
    let child = try await ChildProcess.runXCTest(
      "ArborTestingTests.FirstReportXCTestChild", environment: ["ARBOR_FIRST_REPORT": "xctest"])
    let failures = try child.lines(after: "ARBOR-XCTEST-FAILURE").map { line in
      try JSONDecoder().decode(FailureObserver.Failure.self, from: Data(line.utf8))
    }
    #expect(
      failures.map(\.test) == ["FirstReportXCTestChild.testABranchDroppedWithoutCloseBeforeAnythingUsedArborTesting"])
    #expect(failures.map(\.description) == ["failed - " + expected])
    #expect(child.standardOutput.contains("Executed 1 test, with 1 failure (0 unexpected)"))
    #expect(child.status == 1)
    #expect(!child.crashed)
    #expect(!child.standardError.contains("error: TeardownSkipped"), "reported on standard error instead")
  }
}
