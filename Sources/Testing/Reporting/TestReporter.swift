import Arbor
import Testing

/// Turns the diagnostics Arbor cannot throw (an unpatched placeholder called, a feature registered
/// twice) into test failures: a Swift Testing issue, or an XCTest failure.
///
/// Installed once per process, the first time the process uses any ArborTesting API: a container
/// (``TestFeatures()``, ``TestFeatures(_:file:line:)``), a patch, a `load`, or a test with a
/// ``Testing/Trait/features(_:)`` trait, whose scope installs it before the test body runs. Core
/// calls it for every report from then on, in every test, whether or not that test uses ArborTesting.
///
/// Where the report goes:
/// 1. In a Swift Testing test (the calling task has `Test.current`): an issue whose comment is the
///    diagnostic's rendered tree, attributed to the test.
/// 2. In a running XCTest test case: a failure of that case with the same text, attributed to the
///    placeholder's `#fileID:line` (see ``XCTestReporter``).
/// 3. Otherwise it declines, and Core writes the diagnostic to standard error: a warning for a member
///    with a placeholder value (which it returns), a crash for a member with nothing to return.
///    This is also what happens on a thread or a detached task that does not inherit the Swift
///    Testing test's task locals.
enum TestReporter {
  /// Installs the reporter once; cheap after the first call.
  static func install() {
    _ = installed
  }

  private static let installed: Void = {
    XCTestReporter.register()
    IssueReporting.install(report)
  }()

  /// The installed reporter: `true` when a running test took the diagnostic.
  @Sendable static func report(_ diagnostic: Diagnostic, severity: IssueReporting.Severity) -> Bool {
    // Every report is a failure in a test, a value member's too: a test must patch what it calls.
    let text = diagnostic.renderedTree()
    if let test = Test.current {
      Issue.record(Comment(rawValue: text), sourceLocation: test.sourceLocation)
      return true
    }
    return XCTestReporter.fail(text, at: diagnostic.site)
  }
}

extension Diagnostic {
  /// The source site a test failure is attributed to: where the placeholder is written, or where
  /// the failing request was made.
  var site: (file: String, line: Int)? {
    let written = notes.first { $0.label == "placeholder at" }?.value ?? location?.description
    guard let written, let colon = written.lastIndex(of: ":"), let line = Int(written[written.index(after: colon)...])
    else { return nil }
    return (String(written[..<colon]), line)
  }
}
