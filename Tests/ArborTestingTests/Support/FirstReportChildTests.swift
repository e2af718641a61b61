import Arbor
import ArborDemoFeatures
import Foundation
import Testing
import XCTest

// Tests that fail on purpose, the first thing their process does, without calling ArborTesting:
// they run only in a child process started by `FirstReportTests`, which sets `ARBOR_FIRST_REPORT`
// to the test library (`swift-testing` or `xctest`) and runs nothing else there. In the package's
// own run they are skipped.
//
// This file calls Arbor only, never ArborTesting: the reports must become failures because the
// process links ArborTesting, not because a test used it first.

/// What `FirstReportTests` asked the child process to run, if this process is one.
enum FirstReportChild {
  static var library: String? { ProcessInfo.processInfo.environment["ARBOR_FIRST_REPORT"] }

  /// Where the child's branch is made and its store requested: the report names these lines.
  static let branchLine: UInt = 90
  static let requestLine: UInt = 91

  /// A cache with a teardown, loaded in a session branch that is then released without `close()`:
  /// Arbor reports `TeardownSkipped`.
  static func dropABranchWithoutClosingIt() throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.use(Journal.live(), file: "App/Main.swift", line: 14)
      }
    }
    let session = try root.branch(
      SessionScope.self, context: Session(user: "ann"), file: "App/Main.swift", line: branchLine)
    _ = try session.instance(of: Journal.self, file: "App/Main.swift", line: requestLine)
  }

  /// A cacheable whose teardown must run.
  struct Journal: CacheableFeature {
    var write: @Sendable (String) -> Void
    static var placeholder: Journal { Journal(write: { _ in }) }

    static func live() -> FeatureLoader {
      .cacheable(implementation: "live()", file: "App/Journal.swift", line: 7) { _ in
        Journal(write: { _ in })
      } teardown: { _ in
      }
    }
  }
}

@Suite(.enabled(if: FirstReportChild.library == "swift-testing", "fails on purpose; FirstReportTests runs it"))
struct FirstReportSwiftTestingChild {
  @Test func aBranchDroppedWithoutCloseBeforeAnythingUsedArborTesting() throws {
    try FirstReportChild.dropABranchWithoutClosingIt()
  }
}

final class FirstReportXCTestChild: XCTestCase {
  override func setUpWithError() throws {
    try XCTSkipIf(FirstReportChild.library != "xctest", "fails on purpose; FirstReportTests runs it")
    XCTestObservationCenter.shared.addTestObserver(FailureObserver.shared)
  }

  func testABranchDroppedWithoutCloseBeforeAnythingUsedArborTesting() throws {
    try FirstReportChild.dropABranchWithoutClosingIt()
  }
}
