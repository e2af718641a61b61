@_spi(Integrations) import Arbor
import Configuration

extension FeaturesRegistry {
  /// Gives properties the values of their configuration keys, for this scope's branches and every
  /// branch below them.
  ///
  /// The values are read now, from one snapshot of the providers; a branch reads them as registry
  /// values (`registry.set`), so a value set on a branch, or a nearer registry's, still wins. A key
  /// that no provider has gives no value here: the property reads a registry above, else its
  /// default. A value that does not parse is a ``ConfigurationValueInvalid``, reported, and treated
  /// as absent. While ``FeaturesConfiguration/watch(until:)`` runs, a provider's changes replace the
  /// values, and reach `observe(_:)` on every branch that reads them.
  ///
  /// Works in every scope's registry; each reads from the configuration it is given.
  ///
  /// ```swift
  /// let root = FeaturesRoot { registry in
  ///   registry.configure(ServerPort.self, DatabasePath.self, from: configuration)
  ///   registry.defineScope(TenantScope.self) { registry in
  ///     registry.configure(DatabasePath.self, from: tenantConfiguration)
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - properties: The properties to read.
  ///   - configuration: Where their values come from.
  ///   - file: Where they are read; captured for you, and named by diagnostics.
  ///   - line: Where they are read; captured for you.
  public mutating func configure<each Property: ConfigurationProperty>(
    _ properties: repeat (each Property).Type, from configuration: FeaturesConfiguration,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    let snapshot = configuration.reader.snapshot()
    var bindings: [any ConfigurationBinding] = []
    for property in repeat each properties {
      bindings.append(bind(property, from: configuration, snapshot: snapshot, file: file, line: line))
    }
    configuration.add(bindings)
  }

  /// Reads one property now and registers its live value.
  /// Gives a property that does not name its configuration key (one a library declares as a
  /// plain `FeaturesProperty`) the value of `key`, for this scope's branches and every branch below
  /// them, as ``configure(_:from:file:line:)`` does for a ``ConfigurationProperty``.
  ///
  /// The app names the key where it reads the value, so a library's property needs no conformance to
  /// ``ConfigurationProperty``: the library depends on Arbor alone, and the app adds none
  /// (`@retroactive` or otherwise) to a type it does not own.
  ///
  /// ```swift
  /// let root = FeaturesRoot { registry in
  ///   registry.configure(RequestTimeout.self, key: "http.timeout", from: configuration)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - property: The property to read.
  ///   - key: Its configuration key: `http.timeout` (`HTTP_TIMEOUT` in the environment).
  ///   - isSecret: Whether its value is secret whatever the provider says.
  ///   - configuration: Where its value comes from.
  ///   - file: Where it is read; captured for you, and named by diagnostics.
  ///   - line: Where it is read; captured for you.
  public mutating func configure<Property: FeaturesProperty>(
    _ property: Property.Type, key: String, isSecret: Bool = false, from configuration: FeaturesConfiguration,
    file: StaticString = #fileID, line: UInt = #line
  ) where Property.Value: ConfigurationValue {
    let binding = bind(
      property, key: key, isSecret: isSecret, from: configuration, snapshot: configuration.reader.snapshot(),
      file: file, line: line)
    configuration.add([binding])
  }

  private mutating func bind<Property: ConfigurationProperty>(
    _ property: Property.Type, from configuration: FeaturesConfiguration, snapshot: ConfigSnapshotReader,
    file: StaticString, line: UInt
  ) -> any ConfigurationBinding {
    bind(
      property, key: Property.configurationKey, isSecret: Property.isSecret, from: configuration, snapshot: snapshot,
      file: file, line: line)
  }

  private mutating func bind<Property: FeaturesProperty>(
    _ property: Property.Type, key: String, isSecret: Bool, from configuration: FeaturesConfiguration,
    snapshot: ConfigSnapshotReader, file: StaticString, line: UInt
  ) -> any ConfigurationBinding where Property.Value: ConfigurationValue {
    let registry = Scope.self == RootFeaturesScope.self ? "FeaturesRoot" : "defineScope(\(Scope.name).self)"
    let binding = PropertyBinding<Property>(
      configuration: configuration, key: key, isSecret: isSecret, registry: registry,
      site: SourceLocation(fileID: file, line: line))
    binding.apply(snapshot, isReload: false)
    set(property, to: binding.live, file: file, line: line)
    return binding
  }
}
