import ArborTestSupport
import Foundation
import Testing

@Suite struct ReadmeTests {
  /// The repository's root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The quick start prints with `Swift.print`: the test reads what it printed in a child process of
  /// this test binary, where nothing else runs (Swift Testing reports on standard error).
  @Test(.enabled(if: ChildProcess.isAvailable, "needs to run this test binary as a child process"))
  func theQuickStartGreetsTheSessionUser() async throws {
    let child = try await ChildProcess.runChild("QuickStartChild")
    #expect(child.standardOutput == "Hello ann\n")
    #expect(child.status == 0, "the child failed:\n\(child.standardError)")
    #expect(!child.crashed)
  }

  /// The install section names the products and the platform minimums of Package.swift.
  @Test func theInstallSectionMatchesThePackage() throws {
    let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let install = try #require(
      readme.components(separatedBy: "## Install\n").last?.components(separatedBy: "\n## ").first)
    for product in ["Arbor", "ArborTesting"] {
      #expect(manifest.contains(".library(name: \"\(product)\""))
      #expect(install.contains(".product(name: \"\(product)\", package: \"arbor\")"))
    }
    // `.macOS(.v15)` in the manifest is "macOS 15" in the README.
    let platforms = manifest.matches(of: /\.(\w+)\(\.v(\d+)\)/).map { "\($0.1) \($0.2)" }
    #expect(platforms.count == 5)
    for platform in platforms {
      #expect(install.localizedCaseInsensitiveContains(platform), "the install section does not say \(platform)")
    }
  }

  /// The catalog's Getting started article shows the README's manifest excerpt.
  @Test func gettingStartedInstallsAsTheReadmeDoes() throws {
    func manifest(_ path: String) throws -> String? {
      let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
      return DocsSamplesTests.swiftBlocks(in: text).first { $0.hasPrefix("// Package.swift\n") }
    }
    let readme = try #require(try manifest("README.md"))
    #expect(try manifest("Sources/Core/Arbor.docc/GettingStarted.md") == readme)
  }
}

/// What ``ReadmeTests/theQuickStartGreetsTheSessionUser()`` runs in its child process, and nowhere else.
@Suite(.enabled(if: ChildProcess.runs("QuickStartChild"), "ReadmeTests runs it in a child process"))
struct QuickStartChild {
  @Test func theQuickStart() throws {
    try quickStart()
  }
}
