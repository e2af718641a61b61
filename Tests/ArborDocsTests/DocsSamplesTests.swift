import Foundation
import Testing

/// Guides whose samples live in this test target: each ```swift block must appear verbatim in one
/// of its Swift files, or of the tests Docs/Testing.md quotes (the README's testing sample is that
/// guide's first unit test), so every sample a reader copies has compiled.
@Suite struct DocsSamplesTests {
  static let root = ReadmeTests.root
  static let folders = ["Tests/ArborDocsTests", "Tests/ArborTestingTests/Docs"]

  static func swiftBlocks(in markdown: String) -> [String] {
    markdown.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
  }

  static func unindented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.drop { $0 == " " } }.joined(separator: "\n")
  }

  @Test(arguments: [
    "README.md", "Docs/Concurrency.md", "Docs/Validation.md", "Docs/Properties.md", "Docs/Lifecycle.md",
  ])
  func everySampleOfTheGuideIsCompiled(guide: String) throws {
    let markdown = try String(contentsOf: Self.root.appendingPathComponent(guide), encoding: .utf8)
    let sources = try Self.folders.flatMap { folder in
      let folder = Self.root.appendingPathComponent(folder)
      return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    }.joined(separator: "\n")
    // A manifest excerpt cannot be compiled here: ReadmeTests and TutorialTests check it against
    // Package.swift.
    let blocks = Self.swiftBlocks(in: markdown).filter { !$0.hasPrefix("// Package.swift\n") }
    #expect(!blocks.isEmpty)
    for block in blocks {
      // Indentation aside: a guide may show a test's body without its enclosing suite.
      #expect(
        Self.unindented(sources).contains(Self.unindented(block)),
        "not compiled anywhere in \(Self.folders.joined(separator: " or ")):\n\(block)")
    }
  }
}
