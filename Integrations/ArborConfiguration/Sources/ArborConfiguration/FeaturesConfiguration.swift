@_spi(Integrations) import Arbor
import Configuration
import Synchronization

/// Where a features tree's configuration properties come from: swift-configuration providers,
/// read through one `ConfigReader`.
///
/// Make one from your providers (environment, JSON file, in-memory, any `ConfigProvider`), read
/// properties from it in the root's registry or any scope's with
/// ``Arbor/FeaturesRegistry/configure(_:from:file:line:)``, and follow the providers' reloads with
/// ``watch(until:)``. Use ``reader`` for whatever else the app reads.
///
/// ```swift
/// let configuration = FeaturesConfiguration(providers: [
///   EnvironmentVariablesProvider(),
///   try await FileProvider<JSONSnapshot>(filePath: "/etc/todo/config.json"),
/// ])
/// let root = FeaturesRoot { registry in
///   registry.configure(ServerPort.self, DatabasePath.self, from: configuration)
/// }
/// ```
///
/// The configuration makes the reader itself: a `ConfigReader` says which provider gave a value and
/// whether it is secret only to its access reporter, so the configuration's reporter sits in front
/// of yours (`accessReporter`, which still sees every read).
///
/// A configuration keeps every property a registry read from it, to update them on reloads, for as
/// long as it lives: make one per process (or per test), not one per request.
public final class FeaturesConfiguration: Sendable {
  /// The reader properties are read through; read the rest of the app's configuration with it too.
  public let reader: ConfigReader
  /// Where values that do not parse go.
  let reportInvalid: @Sendable (ConfigurationValueInvalid) -> Void
  /// Every property read from this configuration, in every registry: what a reload updates.
  private let bindings = Mutex<[any ConfigurationBinding]>([])

  /// A configuration read from `providers`, the first that has a value for a key winning.
  ///
  /// ```swift
  /// let configuration = FeaturesConfiguration(providers: [
  ///   EnvironmentVariablesProvider(secretsSpecifier: .specific(["API_TOKEN"])),
  ///   InMemoryProvider(values: ["http.port": 8080]),
  /// ])
  /// ```
  ///
  /// - Parameters:
  ///   - providers: The providers, in the order they are asked. With none, every property reads
  ///     its default.
  ///   - accessReporter: Your access reporter (an `AccessLogger`, say), told of every read.
  ///   - onInvalidValue: Receives each value that does not parse as its property's type; by default
  ///     it is reported through ``IssueReporting``.
  public init(
    providers: [any ConfigProvider], accessReporter: (any AccessReporter)? = nil,
    onInvalidValue: (@Sendable (ConfigurationValueInvalid) -> Void)? = nil
  ) {
    // ConfigReader stops the process for an empty list.
    let providers = providers.isEmpty ? [InMemoryProvider(name: "no providers", values: [:])] : providers
    reader = ConfigReader(providers: providers, accessReporter: AccessRecorder(upstream: accessReporter))
    reportInvalid =
      onInvalidValue ?? { invalid in
        IssueReporting.report(fromIntegration: invalid.diagnostic, severity: .failure)
      }
  }

  /// A configuration read from one provider.
  ///
  /// - Parameters:
  ///   - provider: The provider.
  ///   - accessReporter: Your access reporter, told of every read.
  ///   - onInvalidValue: Receives each value that does not parse; by default it is reported through
  ///     ``IssueReporting``.
  public convenience init(
    provider: some ConfigProvider, accessReporter: (any AccessReporter)? = nil,
    onInvalidValue: (@Sendable (ConfigurationValueInvalid) -> Void)? = nil
  ) {
    self.init(providers: [provider], accessReporter: accessReporter, onInvalidValue: onInvalidValue)
  }

  /// Adds properties read by a registry: reloads update them from now on.
  func add(_ added: [any ConfigurationBinding]) {
    bindings.withLock { $0.append(contentsOf: added) }
  }

  /// Reads every property again from `snapshot`, updating those whose value changed.
  func apply(_ snapshot: ConfigSnapshotReader) {
    for binding in bindings.withLock({ $0 }) { binding.apply(snapshot, isReload: true) }
  }
}
