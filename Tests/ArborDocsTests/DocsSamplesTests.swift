import Foundation
import Testing

/// The README and every article of the DocC catalogs: each ```swift block must appear verbatim in
/// one of the Swift files of `folders` (the README's testing sample is the testing article's first
/// unit test), so every sample a reader copies has compiled. (The tutorial's listings are checked
/// by TutorialTests; the testing article's quotes, by DocsTests too, against the file each names.)
@Suite struct DocsSamplesTests {
  static let root = ReadmeTests.root
  /// The integrations' tests compile the README's server, configuration and macro samples: the root
  /// package cannot depend on Hummingbird, swift-configuration or swift-syntax. ArborAppTests compiles
  /// the app article's samples where code is main-actor by default.
  static let folders = [
    "Tests/ArborDocsTests", "Tests/ArborTestingTests/Docs", "Tests/ArborDiagnosticsTests/Support",
    "Tests/ArborAppTests",
    "Sources/DemoFeatures", "Integrations/ArborHummingbird/Tests/ArborHummingbirdTests",
    "Integrations/ArborConfiguration/Tests/ArborConfigurationTests",
    "Integrations/ArborMacros/Tests/ArborMacrosTests",
  ]
  static let catalogs = ["Sources/Core/Arbor.docc", "Sources/Testing/ArborTesting.docc"]

  /// The README, then every Markdown file of the catalogs, as paths from the package.
  static var guides: [String] {
    ["README.md"]
      + catalogs.flatMap { catalog in
        let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(catalog).path)
        return (files?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
      }
  }

  static func swiftBlocks(in markdown: String) -> [String] {
    markdown.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
  }

  static func unindented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.drop { $0 == " " } }.joined(separator: "\n")
  }

  @Test func theCatalogsHaveArticles() {
    #expect(Self.guides.count >= 6, "no catalog articles found under \(Self.catalogs)")
  }

  @Test(arguments: guides)
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
    for block in blocks {
      // Indentation aside: a guide may show a test's body without its enclosing suite. A guide's
      // `@main` marks an app's entry point, which a test target cannot have: the tests call it.
      let compiled = block.replacing("\n@main\n", with: "\n")
      #expect(
        Self.unindented(sources).contains(Self.unindented(compiled)),
        "not compiled anywhere in \(Self.folders.joined(separator: " or ")):\n\(block)")
    }
  }
}
