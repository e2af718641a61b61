import Foundation

/// The Swift samples of an integration's README, checked against the tests that compile them, so that
/// a reader who copies one copies code that compiled, with the imports and products it needs.
public struct ReadmeSamples {
  /// The README's text.
  public let markdown: String

  /// The README of the package two folders above `testFile` (a test target's file).
  public init(besides testFile: String = #filePath) throws {
    let package = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    markdown = try String(contentsOf: package.appendingPathComponent("README.md"), encoding: .utf8)
  }

  /// Every ```swift block but the manifest excerpts.
  public var samples: [String] {
    blocks.filter { !$0.hasPrefix("// Package.swift\n") }
  }

  /// The manifest excerpts: the ```swift blocks that start `// Package.swift`.
  public var manifests: [String] {
    blocks.filter { $0.hasPrefix("// Package.swift\n") }
  }

  private var blocks: [String] {
    markdown.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
  }

  /// The samples that no test file of the package holds verbatim, indentation aside; a sample's
  /// `@main` is left out, since a test target cannot have one.
  ///
  /// - Parameter testFile: A file of one of the package's test targets, whose sibling folders are
  ///   searched.
  public func samplesNotCompiled(besides testFile: String = #filePath) throws -> [String] {
    let tests = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent()
    let files = FileManager.default.enumerator(atPath: tests.path)?.allObjects as? [String] ?? []
    let sources = try files.filter { $0.hasSuffix(".swift") }
      .map { try String(contentsOf: tests.appendingPathComponent($0), encoding: .utf8) }
      .joined(separator: "\n")
    return samples.filter { !Self.unindented(sources).contains(Self.unindented($0.replacing("\n@main\n", with: "\n"))) }
  }

  /// The modules the samples import that no manifest excerpt names a product of.
  public var importsWithoutProducts: [String] {
    let imports = samples.flatMap { $0.split(separator: "\n").filter { $0.hasPrefix("import ") } }
      .map { String($0.dropFirst("import ".count)) }
    return imports.filter { module in !manifests.contains { $0.contains(".product(name: \"\(module)\"") } }
  }

  private static func unindented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }.joined(separator: "\n")
  }
}
