import Foundation
import Testing

@Suite struct DemoTests {
  /// `swift run arbor-demo`, as the README's first command runs it: built beside this test binary.
  static func runDemo() throws -> String {
    let directory = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
    let demo = directory.appendingPathComponent("arbor-demo")
    guard FileManager.default.isExecutableFile(atPath: demo.path) else {
      Issue.record("arbor-demo is not built beside the tests, at \(demo.path)")
      return ""
    }
    let output = Pipe()
    let process = Process()
    process.executableURL = demo
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: data, as: UTF8.self)
  }

  @Test func theReadmesErrorTreeIsWhatTheDemoPrints() throws {
    let readme = try String(contentsOf: ReadmeTests.root.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "## When something is wrong").last)
    let blocks = section.components(separatedBy: "```")
    try #require(blocks.count > 1, "the section has no code block")
    let shown = blocks[1].trimmingCharacters(in: .newlines)
    let printed = try Self.runDemo()
    let tree = try #require(printed.range(of: "FeatureLoadingFailed:")).lowerBound
    #expect(printed[tree...].trimmingCharacters(in: .newlines) == shown)
  }

  @Test func theDemoSetsTheGreetingLocaleOfOneSessionOnly() throws {
    let printed = try Self.runDemo()
    #expect(
      printed.hasPrefix(
        "The printer starts each line with the time of the demo's fixed clock, Clock(now: { 42 }): [t=42.0].\n\n"))
    #expect(printed.contains("  [t=42.0] Bonjour ann\n  [t=42.0] Hello bob\n"))
    #expect(printed.contains("GreetingLocale is fr, set on this branch at ArborDemo/main.swift:"))
    #expect(printed.contains("GreetingLocale is en, registry.set at ArborDemoFeatures/DemoTree+Localized.swift:"))
  }

  @Test func theDemoCachesOneGreeterPerSession() throws {
    let printed = try Self.runDemo()
    #expect(printed.contains("Greeter.live() ran 2 times for 4 requests in 2 sessions."))
  }

  @Test func theDemoClosesEachSessionAndShowsItsTeardown() throws {
    let printed = try Self.runDemo()
    let lines = printed.components(separatedBy: "\n")
    #expect(
      lines.filter { $0.contains("guestbook closed") } == [
        "  [t=42.0] ann's guestbook closed with 2 signatures", "  [t=42.0] bob's guestbook closed with 2 signatures",
      ])
    // Each session's teardown runs when its session ends, before the next session starts.
    let annClosed = try #require(lines.firstIndex { $0.contains("ann's guestbook") })
    let bobGreeted = try #require(lines.firstIndex { $0.contains("Hello bob") })
    #expect(annClosed < bobGreeted)
  }
}
