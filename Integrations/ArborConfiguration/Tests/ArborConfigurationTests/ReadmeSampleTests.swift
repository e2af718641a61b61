import Arbor
import ArborConfiguration
import Configuration
import Foundation
import Testing

/// The samples of README.md, as they are written there (indentation aside).
enum Readme {
  enum ServerPort: ConfigurationProperty {
    static var configurationKey: String { "http.port" }
    static var defaultValue: Int { 8080 }
  }

  enum DatabasePath: ConfigurationProperty {
    static var configurationKey: String { "database.path" }
    static var defaultValue: String { "todos.sqlite" }
  }

  enum APIToken: ConfigurationProperty {
    static var configurationKey: String { "api.token" }
    static var defaultValue: String { "" }
  }

  static func serve() async throws {
    let configuration = FeaturesConfiguration(providers: [
      EnvironmentVariablesProvider(secretsSpecifier: .specific(["API_TOKEN"])),
      try await FileProvider<JSONSnapshot>(filePath: "config.json", allowMissing: true),
    ])
    let root = FeaturesRoot { registry in
      registry.configure(ServerPort.self, DatabasePath.self, APIToken.self, from: configuration)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await configuration.watch(until: root) }  // returns when the root closes
      print("listening on \(root[ServerPort.self])")
      print(root.which(APIToken.self))  // where the token comes from, never the token itself
      try await root.close()
      try await group.waitForAll()
    }
  }
}

@Suite struct ReadmeSampleTests {
  @Test func theSampleServesAndItsWatchEndsWithTheRoot() async throws {
    try await withTimeout { try await Readme.serve() }
  }

  @Test func everySwiftBlockOfTheReadmeIsInThisFile() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let readme = try String(
      contentsOf: folder.appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let blocks = readme.components(separatedBy: "```swift\n").dropFirst()
      .compactMap { $0.components(separatedBy: "```").first }.filter { !$0.hasPrefix("// Package.swift\n") }
    #expect(blocks.count == 2)
    for block in blocks {
      #expect(unindented(source).contains(unindented(block)), "not in this file:\n\(block)")
    }
  }

  func unindented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }
      .joined(separator: "\n")
  }
}
