#if canImport(XCTest)
  import Foundation
  import ArborDiagnostics
  import XCTest

  /// Records a test failure in the XCTest test case that is running, and knows when none is.
  ///
  /// XCTest offers no public "current test case", and on Linux `XCTFail` outside a running test case
  /// does nothing. So ArborTesting registers an `XCTestObservation` when it is installed and follows
  /// test cases as they start and finish:
  /// - a test case is running: the failure is recorded on it;
  /// - none is (XCTest is between test cases, in a class `setUp`, or not running at all, as in a
  ///   Swift Testing process): the reporter declines, and the diagnostic goes to standard error.
  ///
  /// A failure is attributed to the test: to the `#fileID:line` of the first ArborTesting call the
  /// running test case made (where it made its container, usually), as a Swift Testing issue is
  /// attributed to its test. A test case that made no such call (its container was made before it
  /// started) gets the placeholder's site; the diagnostic says where the placeholder is written in
  /// every case.
  ///
  /// Until a test case starts or finishes after registration, the observer cannot know whether it was
  /// registered inside a running test case (the common case: ArborTesting is first used by a test).
  /// Then the reporter calls `XCTFail` and checks whether XCTest observed the failure: if it did, a
  /// test case was running (and is now known); if not, none was. Such a failure reads
  /// `failed - <diagnostic>`.
  enum XCTestReporter {
    private static let observer = XCTestRunObserver()

    /// Registers the observer with XCTest; called once, when the reporter is installed.
    static func register() {
      XCTestObservationCenter.shared.addTestObserver(observer)
    }

    /// Notes a test's call of ArborTesting: the running test case's failures are attributed to the
    /// first.
    static func noteTestSite(_ site: SourceLocation) {
      observer.noteTestSite(site)
    }

    /// Whether XCTest is known to be running a test case.
    static var isRunningTestCase: Bool {
      guard case .testCase = observer.running.0 else { return false }
      return true
    }

    /// Records `text` as a failure of the running test case.
    ///
    /// - Parameters:
    ///   - text: The failure's description.
    ///   - site: Where the mistake is written, for a test case that made no ArborTesting call.
    /// - Returns: `true` when a test case was running and recorded it; `false` when none was.
    static func fail(_ text: String, at site: SourceLocation?) -> Bool {
      let (running, testSite) = observer.running
      let site = testSite ?? site
      switch running {
      case .idle:
        return false
      case .testCase(let running):
        running.record(text, at: site)
        return true
      case .unknown:
        let before = observer.failuresObserved
        if let site { XCTFail(text, file: site.fileID, line: site.line) } else { XCTFail(text) }
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
      /// The first ArborTesting call of the running test case (while `unknown`, of the one that may be).
      var testSite: SourceLocation?
    }

    private let state = Lock.make(State())

    /// The running test case, and its first ArborTesting call.
    var running: (Running, testSite: SourceLocation?) { state.withLock { ($0.running, $0.testSite) } }
    var failuresObserved: Int { state.withLock { $0.failuresObserved } }

    func noteTestSite(_ site: SourceLocation) {
      state.withLock { state in
        if case .idle = state.running { return }
        if state.testSite == nil { state.testSite = site }
      }
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
      state.withLock { state in
        state.running = .testCase(RunningTestCase(testCase: testCase))
        state.testSite = nil
      }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
      state.withLock { state in
        state.running = .idle
        state.testSite = nil
      }
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
    static func noteTestSite(_ site: SourceLocation) {}
    static func fail(_ text: String, at site: SourceLocation?) -> Bool { false }
    static var isRunningTestCase: Bool { false }
  }
#endif
