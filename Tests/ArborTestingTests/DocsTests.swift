import Foundation
import Testing

/// Sources/Testing/ArborTesting.docc/TestingFeatures.md quotes its samples from the tests in Tests/ArborTestingTests/Docs, so every
/// sample compiles and runs; this checks that each quote is still what the tests hold.
@Suite struct DocsTests {
  @Test func everySampleInTestingMdIsQuotedFromTheTestItNames() throws {
    let package = try #require(
      Self.packageDirectory(),
      "no Package.swift with Sources/Testing/ArborTesting.docc/TestingFeatures.md above the test binary")
    let guide = try String(
      contentsOf: package.appendingPathComponent("Sources/Testing/ArborTesting.docc/TestingFeatures.md"),
      encoding: .utf8)
    let samples = Self.samples(in: guide)
    #expect(samples.count >= 8)
    for sample in samples {
      let source = try #require(sample.source, "a sample with no link to the test file it quotes:\n\(sample.text)")
      let file = try String(contentsOf: package.appendingPathComponent(source), encoding: .utf8)
      let quoted = Self.contains(file, sample.text)
      #expect(
        quoted,
        "Sources/Testing/ArborTesting.docc/TestingFeatures.md quotes \(source), which no longer holds:\n\(sample.text)")
    }
  }

  struct Sample {
    /// The last `../Tests/...swift` or `../Sources/...swift` link before the sample, as a path from
    /// the package.
    var source: String?
    var text: String
  }

  /// The fenced `swift` and `text` blocks of a Markdown document.
  static func samples(in markdown: String) -> [Sample] {
    var samples: [Sample] = []
    var source: String?
    var block: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if var lines = block {
        if line == "```" {
          samples.append(Sample(source: source, text: lines.joined(separator: "\n")))
          block = nil
        } else {
          lines.append(line)
          block = lines
        }
      } else if line == "```swift" || line == "```text" {
        block = []
      } else if let path = quotedPath(in: line) {
        source = path
      }
    }
    return samples
  }

  /// The last source file a line names, as a path from the package: a code span
  /// (`` `Tests/ArborTestingTests/Docs/FirstUnitTest.swift` ``) or a relative link (`](../Tests/...)`).
  static func quotedPath(in line: Substring) -> String? {
    let candidates =
      line.split(separator: "`").map { Substring($0) }
      + line.components(separatedBy: "](../").dropFirst().map { $0.prefix { $0 != ")" } }
    return candidates.last { path in
      (path.hasPrefix("Tests/") || path.hasPrefix("Sources/")) && path.hasSuffix(".swift") && !path.contains(" ")
    }.map(String.init)
  }

  /// Whether `file` holds `sample`'s lines consecutively, ignoring each line's indentation.
  static func contains(_ file: String, _ sample: String) -> Bool {
    let fileLines = file.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed)
    let sampleLines = sample.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed)
    guard !sampleLines.isEmpty, sampleLines.count <= fileLines.count else { return false }
    return (0...(fileLines.count - sampleLines.count)).contains { start in
      Array(fileLines[start..<(start + sampleLines.count)]) == sampleLines
    }
  }

  static func trimmed(_ line: Substring) -> Substring {
    let start = line.firstIndex { $0 != " " } ?? line.endIndex
    return line[start...]
  }

  /// The package's directory: the first directory above this test binary (or the working directory)
  /// that holds Package.swift and Sources/Testing/ArborTesting.docc/TestingFeatures.md.
  static func packageDirectory() -> URL? {
    let manager = FileManager.default
    let starts = [
      URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent(),
      URL(fileURLWithPath: manager.currentDirectoryPath),
    ]
    for start in starts {
      var directory = start.standardizedFileURL
      while directory.path != "/" {
        if manager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
          manager.fileExists(
            atPath: directory.appendingPathComponent("Sources/Testing/ArborTesting.docc/TestingFeatures.md").path)
        {
          return directory
        }
        directory.deleteLastPathComponent()
      }
    }
    return nil
  }
}
