import Arbor
import Testing

/// Turns the diagnostics Arbor cannot throw (an unpatched placeholder called, a feature registered
/// twice) into test failures: a Swift Testing issue, or an XCTest failure.
///
/// Installed as the process loads ArborTesting (see `TestReporter+Load.swift`), before any test
/// runs: every report Arbor makes in a running test is a failure of that test, whatever ran before
/// and whether or not the test uses ArborTesting. Where the compiler cannot install it at load, it is
/// installed by the first ArborTesting call: a container (``TestFeatures(file:line:)``,
/// ``TestFeatures(_:file:line:)``), a patch, a `load`, or a test with a ``Testing/Trait/features(_:)``
/// trait, whose scope installs it before the test body runs.
///
/// Where the report goes:
/// 1. In a Swift Testing test (the calling task has `Test.current`): an issue whose comment is the
///    diagnostic's rendered tree, attributed to the test.
/// 2. In a running XCTest test case: a failure of that case with the same text, attributed to the
///    line of the test that first called ArborTesting in that case, where it made its container (see
///    ``XCTestReporter``).
/// 3. Otherwise it declines, and Core hands the report to the reporter the app installed
///    (``IssueReporting/install(_:)``), or writes it to standard error. This is also what happens on
///    a thread or a detached task that does not inherit the Swift Testing test's task locals.
package enum TestReporter {
  /// Installs the reporter once (cheap after the first call) and notes where the test called
  /// ArborTesting, which is where XCTest failures are attributed.
  ///
  /// - Parameter site: The `#fileID:line` of the test's call; `nil` where none is known (a trait).
  static func install(at site: ArborDiagnostics.SourceLocation?) {
    _ = installed
    if let site { XCTestReporter.noteTestSite(site) }
  }

  private static let installed: Void = {
    XCTestReporter.register()
    IssueReporting.installTestReporter(report, isRunning: { isRunning })
  }()

  /// Whether a Swift Testing test is running for the calling task, or an XCTest test case is running.
  static var isRunning: Bool { Test.current != nil || XCTestReporter.isRunningTestCase }

  /// The installed reporter: `true` when a running test took the report.
  @Sendable static func report(_ report: IssueReporting.Report) -> Bool {
    // Every report is a failure in a test, a value member's too: a test must patch what it calls.
    let text = report.diagnostic.renderedTree()
    if let test = Test.current {
      let comment = Comment(rawValue: text)
      if let issueCapture {
        issueCapture.receive((comment, test.sourceLocation))
      } else {
        Issue.record(comment, sourceLocation: test.sourceLocation)
      }
      return true
    }
    return XCTestReporter.fail(text, at: report.site)
  }

  /// Test hook: where the issue a Swift Testing test would record goes instead, while it is set.
  ///
  /// Tests of this reporter check the issue it makes, and which test it is attributed to, without
  /// recording a real one. A task-local: only the reports of the task that sets it (and of tasks it
  /// starts) go to it.
  @TaskLocal package static var issueCapture: IssueReporting.Capture<(Comment, Testing.SourceLocation)>?
}
