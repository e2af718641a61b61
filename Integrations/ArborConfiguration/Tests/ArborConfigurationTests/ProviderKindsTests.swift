import Arbor
import ArborConfiguration
import Configuration
import Foundation
import Testing

@Suite struct ProviderKindsTests {
  @Test func theEnvironmentGivesEveryKindOfValue() throws {
    let configuration = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(environmentVariables: [
        "HTTP_PORT": "9090", "DATABASE_PATH": "/var/todo.sqlite", "LOAD_FACTOR": "0.5", "VERBOSE": "true",
        "HTTP_TIMEOUT": "1.5", "HTTP_ORIGINS": "a.example,b.example", "RETRY_DELAYS": "1,2,4", "LOG_LEVEL": "debug",
        "UPSTREAM": "db.internal:5432", "DATABASE_REPLICA": "/var/replica.sqlite",
      ]))
    let root = FeaturesRoot { registry in
      registry.configure(
        ServerPort.self, DatabasePath.self, LoadFactor.self, Verbose.self, RequestTimeout.self, AllowedOrigins.self,
        RetryDelays.self, Logging.self, Upstream.self, ReplicaPath.self, from: configuration)
    }
    #expect(root[ServerPort.self] == 9090)
    #expect(root[DatabasePath.self] == "/var/todo.sqlite")
    #expect(root[LoadFactor.self] == 0.5)
    #expect(root[Verbose.self] == true)
    #expect(root[RequestTimeout.self] == .milliseconds(1500))
    #expect(root[AllowedOrigins.self] == ["a.example", "b.example"])
    #expect(root[RetryDelays.self] == [1, 2, 4])
    #expect(root[Logging.self] == .debug)
    #expect(root[Upstream.self].description == "db.internal:5432")
    #expect(root[ReplicaPath.self] == "/var/replica.sqlite")
  }

  @Test func aJSONFileGivesItsValues() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("config.json")
    try Data(
      """
      {"http": {"port": 7070, "timeout": 2, "origins": ["c.example"]}, "database": {"path": "/srv/todo.sqlite"},
       "verbose": true, "log": {"level": "error"}}
      """.utf8
    ).write(to: file)
    let json = try await FileProvider<JSONSnapshot>(
      config: ConfigReader(
        provider: InMemoryProvider(values: ["filePath": ConfigValue(.string(file.path), isSecret: false)])))
    let configuration = FeaturesConfiguration(provider: json)
    let root = FeaturesRoot { registry in
      registry.configure(
        ServerPort.self, RequestTimeout.self, AllowedOrigins.self, DatabasePath.self, Verbose.self, Logging.self,
        LoadFactor.self, from: configuration)
    }
    #expect(root[ServerPort.self] == 7070)
    #expect(root[RequestTimeout.self] == .seconds(2))
    #expect(root[AllowedOrigins.self] == ["c.example"])
    #expect(root[DatabasePath.self] == "/srv/todo.sqlite")
    #expect(root[Verbose.self] == true)
    #expect(root[Logging.self] == .error)
    #expect(root[LoadFactor.self] == 0.75)  // not in the file: the default
  }

  @Test func anInMemoryProviderGivesItsValues() {
    let configuration = FeaturesConfiguration(provider: InMemoryProvider(values: ["http.port": 6060, "verbose": true]))
    let root = FeaturesRoot { registry in
      registry.configure(ServerPort.self, Verbose.self, DatabasePath.self, from: configuration)
    }
    #expect(root[ServerPort.self] == 6060)
    #expect(root[Verbose.self] == true)
    #expect(root[DatabasePath.self] == "todos.sqlite")
  }

  @Test func theFirstProviderWithAValueWins() {
    let configuration = FeaturesConfiguration(providers: [
      EnvironmentVariablesProvider(environmentVariables: ["HTTP_PORT": "9090"]),
      InMemoryProvider(values: ["http.port": 6060, "database.path": "/tmp/todo.sqlite"]),
    ])
    let root = FeaturesRoot { registry in
      registry.configure(ServerPort.self, DatabasePath.self, from: configuration)
    }
    #expect(root[ServerPort.self] == 9090)
    #expect(root[DatabasePath.self] == "/tmp/todo.sqlite")
  }

  @Test func aScopesRegistryReadsItsOwnConfigurationAndCascadesLikeAnyRegistryValue() throws {
    let rootConfiguration = FeaturesConfiguration(provider: InMemoryProvider(values: ["database.path": "/root.sqlite"]))
    let sessionConfiguration = FeaturesConfiguration(
      provider: InMemoryProvider(values: ["database.path": "/ann.sqlite"]))
    let emptyConfiguration = FeaturesConfiguration(provider: InMemoryProvider(values: [:]))
    let root = FeaturesRoot { registry in
      registry.configure(DatabasePath.self, from: rootConfiguration)
      registry.defineScope(SessionScope.self) { registry in
        registry.configure(DatabasePath.self, from: sessionConfiguration)
      }
      registry.defineScope(RequestScope.self) { registry in
        registry.configure(DatabasePath.self, from: emptyConfiguration)  // no value here: the root's
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try root.branch(RequestScope.self, context: 1)
    let sessionRequest = try session.branch(RequestScope.self, context: 2)
    #expect(root[DatabasePath.self] == "/root.sqlite")
    #expect(session[DatabasePath.self] == "/ann.sqlite")
    #expect(request[DatabasePath.self] == "/root.sqlite")
    #expect(sessionRequest[DatabasePath.self] == "/ann.sqlite")
    session[DatabasePath.self] = "/set.sqlite"  // a set on a branch wins over every registry value
    #expect(sessionRequest[DatabasePath.self] == "/set.sqlite")
  }

  @Test func whichSaysTheValueComesFromTheRegistryThatConfiguredIt() {
    let configuration = FeaturesConfiguration(provider: InMemoryProvider(values: ["http.port": 6060]))
    let root = FeaturesRoot { registry in
      registry.configure(ServerPort.self, from: configuration)
    }
    let line = #line - 2
    #expect(
      root.which(ServerPort.self).description == """
        ServerPort is 6060
        ├─ scope: Root
        ├─ from: registry.set at ArborConfigurationTests/ProviderKindsTests.swift:\(line) in FeaturesRoot
        └─ hides: 8080, its defaultValue
        """)
  }
}
