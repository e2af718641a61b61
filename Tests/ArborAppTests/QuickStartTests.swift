import ArborTestSupport
import Foundation
import Testing

/// The README's quick start, compiled in this main-actor module (QuickStart.swift), runs and prints
/// its greeting: read in a child process of this test binary, where nothing else prints.
@Suite struct QuickStartTests {
  @Test(.enabled(if: ChildProcess.isAvailable, "needs to run this test binary as a child process"))
  func theQuickStartGreetsTheSessionUserFromTheMainActor() async throws {
    let child = try await ChildProcess.runChild("AppQuickStartChild")
    #expect(child.standardOutput == "Hello ann\n")
    #expect(child.status == 0, "the child failed:\n\(child.standardError)")
    #expect(!child.crashed)
  }

  @Test func theCompiledQuickStartIsTheReadmes() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let readme = try String(
      contentsOf: folder.appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
    let compiled = try String(contentsOf: folder.appendingPathComponent("QuickStart.swift"), encoding: .utf8)
    let quickStart = try #require(
      readme.components(separatedBy: "## Quick start\n\n```swift\n").dropFirst().first?
        .components(separatedBy: "```").first)
    #expect(compiled.hasSuffix("\n" + quickStart))
  }
}

/// What ``QuickStartTests`` runs in its child process, and nowhere else.
@Suite(.enabled(if: ChildProcess.runs("AppQuickStartChild"), "QuickStartTests runs it in a child process"))
struct AppQuickStartChild {
  @Test func theQuickStart() throws {
    try quickStart()
  }
}
