import Foundation
import Testing

@Suite struct ReadmeTests {
  /// The repository's root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func theQuickStartRuns() throws {
    try quickStart()
  }

  @Test func theReadmeShowsTheQuickStartThatTheTestsCompile() throws {
    let source = try String(contentsOf: Self.root.appendingPathComponent("Tests/ArborDocsTests/QuickStart.swift"), encoding: .utf8)
    let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let sample = try #require(
      source.components(separatedBy: "// quick start: begin\n").last?.components(separatedBy: "// quick start: end").first)
    #expect(readme.contains("```swift\n" + sample + "```\n"))
  }
}
