import Arbor
import ArborConfiguration
import ArborTesting
import Configuration
import Testing

@Suite struct InvalidValueTests {
  @Test func aValueThatDoesNotParseAtRegistrationIsReportedAndReadsAsAbsent() throws {
    let invalid = InvalidValues()
    let configuration = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(environmentVariables: ["HTTP_PORT": "eighty"]),
      onInvalidValue: invalid.handler)
    let root = FeaturesRoot { registry in
      registry.set(ServerPort.self, to: 8000)
      registry.defineScope(SessionScope.self) { registry in
        registry.configure(ServerPort.self, from: configuration)
      }
    }
    let line = #line - 3
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(session[ServerPort.self] == 8000)  // the root registry's value
    #expect(
      invalid.rendered == [
        """
        ConfigurationValueInvalid: http.port in EnvironmentVariablesProvider does not parse as Int
        ├─ requested at: ArborConfigurationTests/InvalidValueTests.swift:\(line)
        ├─ property: ServerPort, in defineScope(SessionScope.self)
        ├─ key: http.port
        ├─ provider: EnvironmentVariablesProvider
        ├─ expected: Int
        ├─ cause: Config value for key 'HTTP_PORT' failed to convert to type int.
        ├─ instead: ServerPort reads the value of a registry above, else its defaultValue
        └─ fix: give http.port a value that parses as Int in EnvironmentVariablesProvider,
                or remove it there to read the next provider's
        """
      ])
  }

  @Test func aCustomTypeThatDoesNotParseNamesItsType() throws {
    let invalid = InvalidValues()
    let configuration = FeaturesConfiguration(
      provider: InMemoryProvider(name: "defaults", values: ["upstream": "no-port", "log.level": "loud"]),
      onInvalidValue: invalid.handler)
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.configure(Upstream.self, Logging.self, from: configuration)
      }
    }
    let line = #line - 3
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(session[Upstream.self].description == "localhost:80")
    #expect(session[Logging.self] == .info)
    #expect(
      invalid.rendered == [
        """
        ConfigurationValueInvalid: upstream in InMemoryProvider[defaults] does not parse as Endpoint
        ├─ requested at: ArborConfigurationTests/InvalidValueTests.swift:\(line)
        ├─ property: Upstream, in defineScope(SessionScope.self)
        ├─ key: upstream
        ├─ provider: InMemoryProvider[defaults]
        ├─ expected: Endpoint
        ├─ cause: Config value for key 'upstream' failed to cast to type Endpoint.
        ├─ instead: Upstream reads the value of a registry above, else its defaultValue
        └─ fix: give upstream a value that parses as Endpoint in InMemoryProvider[defaults],
                or remove it there to read the next provider's
        """,
        """
        ConfigurationValueInvalid: log.level in InMemoryProvider[defaults] does not parse as LogLevel
        ├─ requested at: ArborConfigurationTests/InvalidValueTests.swift:\(line)
        ├─ property: Logging, in defineScope(SessionScope.self)
        ├─ key: log.level
        ├─ provider: InMemoryProvider[defaults]
        ├─ expected: LogLevel
        ├─ cause: Config value for key 'log.level' failed to cast to type LogLevel.
        ├─ instead: Logging reads the value of a registry above, else its defaultValue
        └─ fix: give log.level a value that parses as LogLevel in InMemoryProvider[defaults],
                or remove it there to read the next provider's
        """,
      ])
  }

  @Test func aReloadedValueThatDoesNotParseIsReportedAndTheValueBeforeItStays() async throws {
    let invalid = InvalidValues()
    let provider = MutableInMemoryProvider(name: "live", initialValues: ["http.timeout": 5])
    let configuration = FeaturesConfiguration(provider: provider, onInvalidValue: invalid.handler)
    let root = FeaturesRoot { registry in registry.configure(RequestTimeout.self, from: configuration) }
    let line = #line - 1
    let stream = root.observe(RequestTimeout.self)
    let watching = Task { try await configuration.watch(until: root) }

    provider.setValue("soon", forKey: "http.timeout")
    _ = try await collect(invalid.reports, count: 1)  // the watch read it: a later value cannot hide it
    provider.setValue(2.5, forKey: "http.timeout")  // the next good value is applied

    #expect(try await collect(stream, count: 2) == [.seconds(5), .milliseconds(2500)])
    #expect(
      invalid.rendered == [
        """
        ConfigurationValueInvalid: http.timeout in MutableInMemoryProvider[live] does not parse as Duration (a number of seconds)
        ├─ requested at: ArborConfigurationTests/InvalidValueTests.swift:\(line)
        ├─ property: RequestTimeout, in FeaturesRoot
        ├─ key: http.timeout
        ├─ provider: MutableInMemoryProvider[live]
        ├─ expected: Duration (a number of seconds)
        ├─ cause: Config value for key 'http.timeout' failed to convert to type double.
        ├─ instead: RequestTimeout keeps the value it had before this reload
        └─ fix: give http.timeout a value that parses as Duration (a number of seconds) in MutableInMemoryProvider[live],
                or remove it there to read the next provider's
        """
      ])
    try await root.close()
    try await withTimeout { try await watching.value }
  }

  @Test func withoutAHandlerTheValueIsReportedThroughArborsIssueReporter() {
    let configuration = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(environmentVariables: ["VERBOSE": "perhaps"]))
    _ = TestFeatures()  // installs ArborTesting's reporter: a report is then this test's issue
    withKnownIssue {
      _ = FeaturesRoot { registry in registry.configure(Verbose.self, from: configuration) }
    } matching: { issue in
      issue.comments.map(\.rawValue).contains { text in
        text.hasPrefix("ConfigurationValueInvalid: verbose in EnvironmentVariablesProvider does not parse as Bool\n")
      }
    }
  }
}
