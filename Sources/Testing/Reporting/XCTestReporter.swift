#if canImport(XCTest)
  import Foundation
  import ArborDiagnostics
  import XCTest

  /// Records a test failure in the XCTest test case that is running, and knows when none is.
  ///
  /// XCTest offers no public "current test case", and on Linux `XCTFail` outside a running test case
  /// does nothing. So ArborTesting registers an `XCTestObservation` when it is installed and follows
  /// test cases as they start and finish:
  /// - a test case is running: the failure is recorded on it, at the placeholder's `#fileID:line`;
  /// - none is (XCTest is between test cases, in a class `setUp`, or not running at all, as in a
  ///   Swift Testing process): the reporter declines, and the diagnostic goes to standard error.
  ///
  /// Until a test case starts or finishes after registration, the observer cannot know whether it was
  /// registered inside a running test case (the common case: ArborTesting is first used by a test).
  /// Then the reporter calls `XCTFail` and checks whether XCTest observed the failure: if it did, a
  /// test case was running (and is now known); if not, none was. Such a failure reads
  /// `failed - <diagnostic>` and is attributed to this file, since `XCTFail` takes only a static
  /// file name; the diagnostic still says where the placeholder is written.
  enum XCTestReporter {
    private static let observer = XCTestRunObserver()

    /// Registers the observer with XCTest; called once, when the reporter is installed.
    static func register() {
      XCTestObservationCenter.shared.addTestObserver(observer)
    }

    /// Records `text` as a failure of the running test case.
    ///
    /// - Returns: `true` when a test case was running and recorded it; `false` when none was.
    static func fail(_ text: String, at site: SourceLocation?) -> Bool {
      switch observer.running {
      case .idle:
        return false
      case .testCase(let running):
        running.record(text, at: site)
        return true
      case .unknown:
        let before = observer.failuresObserved
        XCTFail(text, file: #fileID, line: #line)
        return observer.failuresObserved != before
      }
    }
  }

  /// Follows the XCTest test case that is running, as XCTest reports it to its observers.
  final class XCTestRunObserver: NSObject, XCTestObservation, Sendable {
    enum Running {
      /// Registered mid-run: no start or finish seen yet.
      case unknown
      /// Between test cases.
      case idle
      case testCase(RunningTestCase)
    }

    private struct State {
      var running = Running.unknown
      var failuresObserved = 0
    }

    private let state = Lock.make(State())

    var running: Running { state.withLock { $0.running } }
    var failuresObserved: Int { state.withLock { $0.failuresObserved } }

    func testCaseWillStart(_ testCase: XCTestCase) {
      state.withLock { $0.running = .testCase(RunningTestCase(testCase: testCase)) }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
      state.withLock { $0.running = .idle }
    }

    #if canImport(ObjectiveC)
      func testCase(_ testCase: XCTestCase, didRecord issue: XCTIssue) {
        observed(testCase)
      }
    #else
      func testCase(
        _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?,
        atLine lineNumber: Int
      ) {
        observed(testCase)
      }
    #endif

    /// A failure was recorded: a test case is running, even if it started before registration.
    private func observed(_ testCase: XCTestCase) {
      state.withLock { state in
        state.failuresObserved += 1
        if case .unknown = state.running { state.running = .testCase(RunningTestCase(testCase: testCase)) }
      }
    }
  }

  /// The running test case, carried out of the observer's lock to record a failure on it.
  // Sendable: the one thing done with it off the main thread is `recordFailure`, which is what
  // `XCTFail` itself does with the running test case from whichever thread an assertion fails on;
  // XCTest keeps the test case alive while it runs.
  struct RunningTestCase: @unchecked Sendable {
    let testCase: XCTestCase

    /// Records `text` as a failure of the test case, at `site` when it is known.
    func record(_ text: String, at site: SourceLocation?) {
      // XCTest takes a path; the `#fileID` is what Arbor has, and what its diagnostics show.
      let file = site?.fileID.description
      let line = site.map { Int($0.line) }
      #if canImport(ObjectiveC)
        var issue = XCTIssue(type: .assertionFailure, compactDescription: text)
        if let file, let line {
          issue.sourceCodeContext = XCTSourceCodeContext(
            location: XCTSourceCodeLocation(filePath: file, lineNumber: line))
        }
        testCase.record(issue)
      #else
        testCase.recordFailure(withDescription: text, inFile: file ?? "<unknown>", atLine: line ?? 0, expected: true)
      #endif
    }
  }
#else
  import ArborDiagnostics

  /// Without XCTest there is no XCTest test case to fail.
  enum XCTestReporter {
    static func register() {}
    static func fail(_ text: String, at site: SourceLocation?) -> Bool { false }
  }
#endif
