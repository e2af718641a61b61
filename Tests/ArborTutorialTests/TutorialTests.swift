import ArborTesting
import Foundation
import Testing

/// The getting-started tutorial (`Sources/Core/Arbor.docc/Tutorials/BuildATestedApp.tutorial`) shows
/// the files of its app, step by step, from the catalog's `Resources`; this target holds that app
/// and its tests, compiled and run.
@Suite struct TutorialTests {
  static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let resources = package.appendingPathComponent("Sources/Core/Arbor.docc/Resources")
  static let folder = package.appendingPathComponent("Tests/ArborTutorialTests")

  /// The tutorial's listings named `getting-started-*` with the given extension.
  static func listings(_ ext: String) throws -> [(name: String, text: String)] {
    try FileManager.default.contentsOfDirectory(atPath: resources.path)
      .filter { $0.hasPrefix("getting-started-") && $0.hasSuffix(ext) }.sorted()
      .map { ($0, try String(contentsOf: resources.appendingPathComponent($0), encoding: .utf8)) }
  }

  /// Code as it is compared: without import lines (the app and its tests are one module here),
  /// `@main` (a test target has its own entry point), indentation, and blank lines at either end.
  static func comparable(_ code: String) -> String {
    code.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("import ") && !$0.hasPrefix("@testable import ") && $0 != "@main" }
      .map { $0.drop { $0 == " " } }.joined(separator: "\n")
      .trimmingCharacters(in: .newlines)
  }

  /// Every step's listing is a run of lines of this target's files: a step that grows a file shows
  /// a first part of it, so each line of each step is compiled.
  @Test func everySwiftListingIsCompiledHere() throws {
    let sources = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
      .filter { $0.hasSuffix(".swift") }
      .map { Self.comparable(try String(contentsOf: Self.folder.appendingPathComponent($0), encoding: .utf8)) }
      .joined(separator: "\n")
    let listings = try Self.listings(".swift").filter { $0.name != "getting-started-Package.swift" }
    #expect(listings.count == 11)
    for listing in listings {
      #expect(sources.contains(Self.comparable(listing.text)), "\(listing.name) is not compiled in ArborTutorialTests")
    }
  }

  /// The manifest cannot be compiled here: it uses Arbor's platforms, products and README line.
  @Test func theManifestUsesThisPackagesPlatformsAndProducts() throws {
    let manifest = try #require(try Self.listings(".swift").first { $0.name == "getting-started-Package.swift" }).text
    let arbor = try String(contentsOf: Self.package.appendingPathComponent("Package.swift"), encoding: .utf8)
    let readme = try String(contentsOf: Self.package.appendingPathComponent("README.md"), encoding: .utf8)
    let platforms = try #require(arbor.split(separator: "\n").first { $0.contains("platforms:") })
    #expect(manifest.contains(platforms + "\n"))
    for product in ["Arbor", "ArborTesting"] {
      #expect(arbor.contains(".library(name: \"\(product)\""))
      #expect(manifest.contains(".product(name: \"\(product)\", package: \"arbor\")"))
    }
    let dependency = try #require(manifest.split(separator: "\n").first { $0.contains(".package(path:") })
    #expect(readme.contains(dependency.drop { $0 == " " } + "\n"), "the README's install line differs")
  }

  /// The step that forgets the session's context shows what the test then reports, in the app's
  /// module (`Greetings`).
  @Test func aForgottenContextReportsWhatTheTutorialShows() throws {
    let shown = try #require(try Self.listings(".txt").first { $0.name == "getting-started-missing-context.txt" }).text
    let features = TestFeatures()
    let error = #expect(throws: FeaturesScopeContextUnavailable.self) {
      let _: Greeter = try features.load(Greeter.live())
    }
    let rendered = error?.diagnostic.renderedTree().replacingOccurrences(of: "ArborTutorialTests/", with: "Greetings/")
    #expect(rendered.map { $0 + "\n" } == shown)
  }
}
