/// A registry value of a property that changes while the tree lives: for integrations that back
/// properties with an outside source (a configuration provider that reloads).
///
/// Give it to a registry with `registry.set(Property.self, to: live)`; every branch that reads the
/// registry's value (one that neither it nor an ancestor sets, and that no nearer registry gives)
/// reads the live value's current one, and ``update(to:isRedacted:)`` reaches their
/// `observe(Property.self)` streams as a set would. A live value without a value (`nil`) gives none:
/// lookup goes on to the registries above, then to the default.
///
/// A value marked redacted is a secret: `which` and its JSON show `<redacted>` in its place.
///
/// Use one live value in one registry.
@_spi(Integrations)
public final class LiveRegistryValue<P: FeaturesProperty>: Sendable {
  let cell: LivePropertyCell

  /// A live value, with its first value.
  ///
  /// - Parameters:
  ///   - property: The property.
  ///   - value: Its first value; `nil` for none.
  ///   - isRedacted: Whether the value is a secret, never shown.
  public init(_ property: P.Type, value: P.Value?, isRedacted: Bool = false) {
    cell = LivePropertyCell(key: FeatureTable.key(property), make: Self.make(value, isRedacted: isRedacted))
  }

  /// Replaces the value: every branch that reads it reads the new one, and their observers are given
  /// it.
  ///
  /// - Parameters:
  ///   - value: The new value; `nil` for none.
  ///   - isRedacted: Whether the value is a secret, never shown.
  public func update(to value: P.Value?, isRedacted: Bool = false) {
    cell.update(Self.make(value, isRedacted: isRedacted))
  }

  private static func make(_ value: P.Value?, isRedacted: Bool) -> (@Sendable (PropertySource) -> AnyPropertyBox)? {
    guard let value else { return nil }
    return { source in PropertyBox(value, source: source, isRedacted: isRedacted) }
  }
}

extension FeaturesRegistry {
  /// Gives a property a live value for this scope's branches and every branch below them.
  ///
  /// - Parameters:
  ///   - property: The property.
  ///   - value: The live value; changes to it reach the branches that read it.
  ///   - file: Where it is set; captured for you.
  ///   - line: Where it is set; captured for you.
  @_spi(Integrations)
  public mutating func set<P: FeaturesProperty>(
    _ property: P.Type, to value: LiveRegistryValue<P>, file: StaticString = #fileID, line: UInt = #line
  ) {
    content.properties.append(
      PropertySetting(key: FeatureTable.key(property), site: SourceLocation(fileID: file, line: line)) {
        scopes, site in value.cell.bind(to: .registry(scopes: scopes, site: site))
      })
  }
}
