import Arbor
import Configuration

/// A property whose value comes from a configuration key: a port, a database path, a token.
///
/// Name the key (in swift-configuration's dotted form: `http.port` is `HTTP_PORT` in the
/// environment and `{"http": {"port": …}}` in a JSON file) and, as for every property, the value's
/// type and its default. Read it from a ``FeaturesConfiguration`` with
/// `registry.configure(Property.self, from: configuration)`; read it on a branch as any property.
///
/// ```swift
/// enum ServerPort: ConfigurationProperty {
///   static var configurationKey: String { "http.port" }
///   static var defaultValue: Int { 8080 }
/// }
/// ```
///
/// A value the provider marks secret, or any value of a property whose ``isSecret`` is `true`, is
/// never printed: `which`, its JSON and the diagnostics show `<redacted>` instead.
public protocol ConfigurationProperty: FeaturesProperty where Value: ConfigurationValue {
  /// The key to read, with its components separated by dots: `http.port`.
  static var configurationKey: String { get }

  /// Whether the value is a secret whatever its provider says; `false` unless you say so.
  static var isSecret: Bool { get }
}

extension ConfigurationProperty {
  /// `false`: the provider decides (its secrets specifier).
  public static var isSecret: Bool { false }
}
