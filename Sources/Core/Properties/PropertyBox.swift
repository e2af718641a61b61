/// One value of a property, with where it comes from: made by a registry, a set on a branch, or
/// the default, and never changed afterwards.
///
/// Every branch that reads the value shares the box, and reads `value` from it without a lock. A
/// box's identity is its source: a branch compares identities to know whether a set changed what
/// it reads.
@usableFromInline
package class AnyPropertyBox: @unchecked Sendable {
  // Sendable: immutable; subclasses add one immutable `Sendable` value.
  /// Where the value comes from.
  package let source: PropertySource
  /// Whether the value is a secret: `which` and its JSON show ``redactedDescription`` instead.
  package let isRedacted: Bool

  init(source: PropertySource, isRedacted: Bool) {
    self.source = source
    self.isRedacted = isRedacted
  }

  /// What diagnostics show in place of a secret value.
  package static let redactedDescription = "<redacted>"

  /// The value, as diagnostics show it: ``redactedDescription`` for a secret.
  package var valueDescription: String { isRedacted ? Self.redactedDescription : describedValue }

  /// The value as `String(describing:)` renders it, secret or not.
  var describedValue: String { "" }

  /// Whether `other` holds a value equal to this box's: `false` unless the value is `Equatable`.
  func hasValue(equalTo other: AnyPropertyBox) -> Bool { false }
}

/// A property's value in a box of its type.
@usableFromInline
package final class PropertyBox<Value: Sendable>: AnyPropertyBox, @unchecked Sendable {
  // Sendable: `value` is immutable and `Sendable`.
  @usableFromInline package let value: Value

  package init(_ value: Value, source: PropertySource, isRedacted: Bool = false) {
    self.value = value
    super.init(source: source, isRedacted: isRedacted)
  }

  override var describedValue: String { String(describing: value) }

  override func hasValue(equalTo other: AnyPropertyBox) -> Bool {
    // A value that is not `Equatable` cannot be compared: every box of it counts as a new value.
    guard let value = value as? any Equatable, let other = other as? PropertyBox<Value> else { return false }
    return value.isEqual(to: other.value)
  }
}

extension Equatable {
  /// Whether `other` is a value of this type equal to this one.
  fileprivate func isEqual(to other: Any) -> Bool {
    (other as? Self) == self
  }
}

/// Where a property's value comes from.
package enum PropertySource: Sendable {
  /// `registry.set(_:to:)` in the registry of the last scope of `scopes` (root first), at `site`.
  case registry(scopes: [any FeaturesScope.Type], site: SourceLocation)
  /// `features[property] = value` on the branch at `path`, at `site`.
  case set(path: ScopePath, site: SourceLocation)
  /// Nothing sets it: the property's `defaultValue`.
  case `default`
}
