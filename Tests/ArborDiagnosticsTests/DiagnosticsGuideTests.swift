import Foundation
import Testing

/// `Sources/Core/Arbor.docc/Diagnostics.md` shows exactly what Arbor renders for the failures of `DocExamples`.
///
/// Each `<!-- generated: key -->` marker in the guide is followed by a fenced block that must equal
/// the example's rendering. After changing a rendering, regenerate the blocks with
/// `ARBOR_UPDATE_DOCS=1 swift test --filter DiagnosticsGuideTests`, and read the diff.
@Suite struct DiagnosticsGuideTests {
  static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sources/Core/Arbor.docc/Diagnostics.md")

  @Test func theGuideShowsTheRealRenderingOfEveryExample() async throws {
    var text = try String(contentsOf: Self.guide, encoding: .utf8)
    let expected = try await DocExamples.blocks()
    if ProcessInfo.processInfo.environment["ARBOR_UPDATE_DOCS"] != nil {
      text = try Self.replacingBlocks(in: text, with: expected)
      try text.write(to: Self.guide, atomically: true, encoding: .utf8)
    }
    let found = try Self.blocks(in: text)
    #expect(found.map(\.key) == expected.map(\.key), "every example appears once, in order")
    for block in expected {
      let shown = found.first { $0.key == block.key }
      #expect(shown == block, "the block under <!-- generated: \(block.key) --> is out of date")
    }
  }

  @Test func theGuideNamesEveryErrorKindArborThrows() throws {
    let text = try String(contentsOf: Self.guide, encoding: .utf8)
    for kind in [
      "FeatureUndefined", "FeatureLoadingFailed", "FeaturesScopeUndefined", "FeaturesScopeContextUnavailable",
      "CircularDependency", "FeatureRegistrationConflict", "FeaturesReleased", "FeatureUnimplemented",
      "FeatureRequiresAwait", "FeatureRequiresMainActor", "CurrentFeaturesUndefined", "FeaturesValidationFailed",
      "FeaturesScopeUnchecked",
      "FeaturesClosed", "TeardownFailed", "TeardownSkipped",
    ] {
      #expect(text.contains("\n### `\(kind)`\n"), "no section for \(kind)")
    }
  }

  static let marker = "<!-- generated: "

  /// The generated blocks of the guide, in order.
  static func blocks(in text: String) throws -> [DocExamples.Block] {
    let lines = text.components(separatedBy: "\n")
    var blocks: [DocExamples.Block] = []
    var index = 0
    while index < lines.count {
      defer { index += 1 }
      guard lines[index].hasPrefix(marker), lines[index].hasSuffix(" -->") else { continue }
      let key = String(lines[index].dropFirst(marker.count).dropLast(" -->".count))
      let fence = try #require(index + 1 < lines.count ? lines[index + 1] : nil, "no block after \(key)")
      try #require(fence.hasPrefix("```"), "the line after <!-- generated: \(key) --> must open a fenced block")
      let end = try #require(lines[(index + 2)...].firstIndex(of: "```"), "the block of \(key) is not closed")
      blocks.append(
        .init(key: key, language: String(fence.dropFirst(3)), text: lines[(index + 2)..<end].joined(separator: "\n")))
      index = end
    }
    return blocks
  }

  /// `text` with the block after each marker replaced by the example of the same key.
  static func replacingBlocks(in text: String, with examples: [DocExamples.Block]) throws -> String {
    var lines = text.components(separatedBy: "\n")
    var index = 0
    while index < lines.count {
      defer { index += 1 }
      guard lines[index].hasPrefix(marker), lines[index].hasSuffix(" -->") else { continue }
      let key = String(lines[index].dropFirst(marker.count).dropLast(" -->".count))
      guard let example = examples.first(where: { $0.key == key }) else { continue }
      let replacement = ["```" + example.language] + example.text.components(separatedBy: "\n") + ["```"]
      if index + 1 < lines.count, lines[index + 1].hasPrefix("```"),
        let end = lines[(index + 2)...].firstIndex(of: "```")
      {
        lines.replaceSubrange((index + 1)...end, with: replacement)
      } else {
        lines.insert(contentsOf: replacement, at: index + 1)
      }
      index += replacement.count
    }
    return lines.joined(separator: "\n")
  }
}
