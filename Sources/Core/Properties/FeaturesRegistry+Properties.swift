extension FeaturesRegistry {
  /// Gives a property its value for this scope's branches and every branch below them.
  ///
  /// A branch reads the nearest registry value on its path unless it, or an ancestor, set the
  /// property itself (``Features/subscript(_:file:line:)``). Works in every scope's registry; set a
  /// property once per registry (a second call replaces the first).
  ///
  /// ```swift
  /// let root = FeaturesRoot { registry in
  ///   registry.set(RequestTimeout.self, to: .seconds(10))
  ///   registry.defineScope(SessionScope.self) { registry in
  ///     registry.set(RequestTimeout.self, to: .seconds(5))
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - property: The property.
  ///   - value: Its value in this scope's branches.
  ///   - file: Where it is set; captured for you.
  ///   - line: Where it is set; captured for you.
  public mutating func set<P: FeaturesProperty>(
    _ property: P.Type, to value: P.Value, file: StaticString = #fileID, line: UInt = #line
  ) {
    content.properties.append(
      PropertySetting(key: FeatureTable.key(property), site: SourceLocation(fileID: file, line: line)) {
        scopes, site in .fixed(PropertyBox(value, source: .registry(scopes: scopes, site: site)))
      })
  }
}

/// One `registry.set(_:to:)`, until its registry's scope definition is built and knows its path.
struct PropertySetting {
  let key: UInt
  let site: SourceLocation
  /// The registry's value, given the scopes from the root to the registry's.
  let value: ([any FeaturesScope.Type], SourceLocation) -> RegistryPropertyValue

  /// The values of a registry's `settings`, whose scope path is `scopes`: the last for a property wins.
  static func values(
    _ settings: [PropertySetting], in scopes: [any FeaturesScope.Type]
  ) -> [UInt: RegistryPropertyValue] {
    var values: [UInt: RegistryPropertyValue] = [:]
    for setting in settings { values[setting.key] = setting.value(scopes, setting.site) }
    return values
  }
}
