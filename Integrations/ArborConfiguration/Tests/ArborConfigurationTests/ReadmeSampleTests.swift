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

extension Readme {
  // In a library that depends on Arbor alone: a plain property, with no configuration key.
  public enum SessionIdleTime: FeaturesProperty {
    public static var defaultValue: Duration { .seconds(900) }
  }

  static func configureTheLibrarysProperty(from configuration: FeaturesConfiguration) -> Features {
    let root = FeaturesRoot { registry in
      // The app names the key; the library's type needs no conformance, `@retroactive` or not.
      registry.configure(SessionIdleTime.self, key: "sessions.idle-time", from: configuration)
    }
    return root
  }
}

@Suite struct ReadmeSampleTests {
  @Test func aLibrarysPlainPropertyIsConfiguredByTheKeyTheAppNames() throws {
    let configured = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(environmentVariables: ["SESSIONS_IDLE_TIME": "60"]))
    #expect(Readme.configureTheLibrarysProperty(from: configured)[Readme.SessionIdleTime.self] == .seconds(60))
    let empty = FeaturesConfiguration(provider: EnvironmentVariablesProvider(environmentVariables: [:]))
    #expect(Readme.configureTheLibrarysProperty(from: empty)[Readme.SessionIdleTime.self] == .seconds(900))
  }

  @Test func aPropertyConfiguredByKeyCanBeMadeSecret() throws {
    let configuration = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(environmentVariables: ["SESSIONS_IDLE_TIME": "60"]))
    let root = FeaturesRoot { registry in
      registry.configure(Readme.SessionIdleTime.self, key: "sessions.idle-time", isSecret: true, from: configuration)
    }
    #expect(root[Readme.SessionIdleTime.self] == .seconds(60))
    #expect(!"\(root.which(Readme.SessionIdleTime.self))".contains("60"))
  }

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
    #expect(blocks.count == 4)
    for block in blocks {
      #expect(unindented(source).contains(unindented(block)), "not in this file:\n\(block)")
    }
  }

  func unindented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }
      .joined(separator: "\n")
  }
}
