import ArborDemoFeatures
import ArborTesting
import Foundation
import XCTest

/// XCTest cases that fail on purpose: they run only in a child process started by
/// ``XCTestReportingTests``, which sets `ARBOR_XCTEST_CHILD` to the scenario; in the package's own
/// XCTest run they are skipped.
///
/// Scenarios:
/// - `report`: two test cases each call an unpatched placeholder. The first is the first use of
///   ArborTesting in the process (the reporter does not yet know a test case is running); the
///   second runs once it knows. After them, the class's `tearDown` calls a value placeholder outside
///   any test case.
/// - `void`: the class's `setUp`, outside any test case, calls a placeholder with nothing to return,
///   which reports on standard error and returns; the test cases are skipped.
final class UnpatchedPlaceholderXCTests: XCTestCase {
  static var scenario: String? { ProcessInfo.processInfo.environment["ARBOR_XCTEST_CHILD"] }

  override class func setUp() {
    super.setUp()
    guard let scenario else { return }
    XCTestObservationCenter.shared.addTestObserver(FailureObserver.shared)
    if scenario == "void" {
      _ = TestFeatures()  // installs ArborTesting's reporter, which must decline: no test case runs
      Printer.placeholder.print("outside a test case")
      FailureObserver.write("ARBOR-OUTSIDE-VOID returned")
    }
  }

  override class func tearDown() {
    if scenario == "report" {
      let now = Clock.placeholder.now()  // XCTest is between test cases: a warning, and the placeholder
      FailureObserver.write("ARBOR-OUTSIDE-VALUE \(now)")
    }
    super.tearDown()
  }

  override func setUpWithError() throws {
    try XCTSkipIf(Self.scenario != "report", "fails on purpose; XCTestReportingTests runs it in a child process")
  }

  /// Where each test case makes its container: XCTest failures are attributed there, in the test.
  static let containerSites = [
    "ArborTestingTests/UnpatchedPlaceholderXCTests.swift:\(firstContainerLine)",
    "ArborTestingTests/UnpatchedPlaceholderXCTests.swift:\(secondContainerLine)",
  ]
  static let firstContainerLine = #line + 3

  func test1UnpatchedVoidMemberInTheFirstTestCase() throws {
    let features = TestFeatures()
    let printer: Printer = try features.instance()
    printer.print("Hello")
  }

  static let secondContainerLine = #line + 2
  func test2UnpatchedValueMemberInALaterTestCase() throws {
    let features = TestFeatures()
    let clock: Clock = try features.instance()
    XCTAssertEqual(clock.now(), 0)
  }
}

/// Counts the failures XCTest records and writes each as a line the parent process reads.
final class FailureObserver: NSObject, XCTestObservation, Sendable {
  static let shared = FailureObserver()

  struct Failure: Codable, Equatable {
    var test: String
    var description: String
    var file: String?
    var line: Int
  }

  func testCase(
    _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?, atLine lineNumber: Int
  ) {
    let failure = Failure(test: testCase.name, description: description, file: filePath, line: lineNumber)
    let json = String(decoding: try! JSONEncoder().encode(failure), as: UTF8.self)
    Self.write("ARBOR-XCTEST-FAILURE \(json)")
  }

  static func write(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }
}
