@_spi(Integrations) import Arbor
import Configuration
import Synchronization

/// A property read from a configuration in one registry: what a reload reads again.
protocol ConfigurationBinding: Sendable {
  /// Reads the property from `snapshot` and updates its registry value if it changed.
  func apply(_ snapshot: ConfigSnapshotReader, isReload: Bool)
}

/// One property read from a configuration by one registry, and its live registry value.
final class PropertyBinding<Property: FeaturesProperty>: ConfigurationBinding where Property.Value: ConfigurationValue {
  let live = LiveRegistryValue(Property.self, value: nil)
  let configuration: FeaturesConfiguration
  /// The configuration key it is read from: `http.port`.
  let key: String
  /// Whether its value is secret whatever the provider says.
  let isSecret: Bool
  /// The registry that reads it: `FeaturesRoot`, `defineScope(SessionScope.self)`.
  let registry: String
  /// Where `configure` was called.
  let site: SourceLocation
  /// The value in effect, and whether it is secret; `nil`: none. Applying holds its lock, so updates
  /// reach the live value in the order they were read.
  private let current = Mutex<(value: Property.Value, isSecret: Bool)?>(nil)

  init(configuration: FeaturesConfiguration, key: String, isSecret: Bool, registry: String, site: SourceLocation) {
    self.configuration = configuration
    self.key = key
    self.isSecret = isSecret
    self.registry = registry
    self.site = site
  }

  func apply(_ snapshot: ConfigSnapshotReader, isReload: Bool) {
    let read = ConfigurationRead<Property.Value>(key: key, isSecret: isSecret, in: snapshot)
    let invalid = current.withLock { current -> ConfigurationValueInvalid? in
      switch read {
      case .value(let value, let isSecret):
        if let current, current.value == value, current.isSecret == isSecret { return nil }
        current = (value, isSecret)
        live.update(to: value, isRedacted: isSecret)
      case .none:
        guard current != nil else { return nil }
        current = nil
        live.update(to: nil)
      case .invalid(let provider, let cause):
        return ConfigurationValueInvalid(
          property: String(describing: Property.self), key: key, provider: provider,
          expected: Property.Value.configurationTypeDescription, cause: cause, registry: registry, isReload: isReload,
          at: site)
      }
      return nil
    }
    if let invalid { configuration.reportInvalid(invalid) }
  }
}
