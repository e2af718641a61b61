import Foundation
import Testing

@Suite struct ReadmeTests {
  /// The repository's root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func theQuickStartRuns() throws {
    try quickStart()
  }
}
