import Arbor

/// A configuration value that does not parse as its property's type.
///
/// Found when a registry reads the property (`registry.configure`) or when a provider reloads it
/// (``FeaturesConfiguration/watch(until:)``). Neither can throw to anyone, so the configuration
/// reports it: to the handler given to ``FeaturesConfiguration``, else through ``IssueReporting`` (a
/// test failure in tests, the installed reporter or standard error otherwise). The property goes on
/// as if the value were not there: at registration its branches read the value of a registry above,
/// else the default; at a reload they keep the value they had. The value itself is never shown: it
/// may be a secret.
///
/// ```
/// ConfigurationValueInvalid: http.port in EnvironmentVariablesProvider does not parse as Int
/// ├─ requested at: App/Main.swift:14
/// ├─ property: ServerPort, in FeaturesRoot
/// ├─ key: http.port
/// ├─ provider: EnvironmentVariablesProvider
/// ├─ expected: Int
/// ├─ cause: Config value for key 'HTTP_PORT' failed to convert to type int.
/// ├─ instead: ServerPort reads the value of a registry above, else its defaultValue
/// └─ fix: give http.port a value that parses as Int in EnvironmentVariablesProvider,
///         or remove it there to read the next provider's
/// ```
public struct ConfigurationValueInvalid: DiagnosticError {
  /// The property: `ServerPort`.
  public let property: String
  /// The configuration key: `http.port`.
  public let key: String
  /// The name of the provider whose value does not parse.
  public let provider: String
  /// What a valid value looks like: `Int`.
  public let expected: String
  /// What was found, where, what the property reads instead, and how to fix it.
  public let diagnostic: Diagnostic

  init(
    property: String, key: String, provider: String, expected: String, cause: String, registry: String,
    isReload: Bool, at location: SourceLocation
  ) {
    self.property = property
    self.key = key
    self.provider = provider
    self.expected = expected
    let instead =
      isReload
      ? "\(property) keeps the value it had before this reload"
      : "\(property) reads the value of a registry above, else its defaultValue"
    diagnostic = Diagnostic(
      kind: "ConfigurationValueInvalid",
      message: "\(key) in \(provider) does not parse as \(expected)",
      location: location,
      notes: [
        .init("property", "\(property), in \(registry)"),
        .init("key", key),
        .init("provider", provider),
        .init("expected", expected),
        .init("cause", cause),
        .init("instead", instead),
      ],
      fix:
        "give \(key) a value that parses as \(expected) in \(provider),\nor remove it there to read the next provider's"
    )
  }
}
