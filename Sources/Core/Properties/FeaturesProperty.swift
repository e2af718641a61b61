/// A typed value with a default that cascades down a features tree: a configuration value, a
/// locale, a feature flag.
///
/// Declare a property as a case-less enum naming its value's type and its default. Give it a value
/// for a scope's branches with ``FeaturesRegistry/set(_:to:file:line:)``, change it on a branch with
/// ``Features/subscript(_:file:line:)``, and follow its changes with
/// ``Features/observe(_:file:line:)``.
///
/// A branch reads the value set on it, else the one set on the nearest ancestor that sets one, else
/// the nearest registry value on its path, else ``defaultValue``. Reading never throws and never
/// loads anything.
///
/// ```swift
/// enum RequestTimeout: FeaturesProperty {
///   static var defaultValue: Duration { .seconds(30) }
/// }
///
/// let timeout = session[RequestTimeout.self]
/// ```
public protocol FeaturesProperty: Sendable {
  /// The type of the property's value.
  associatedtype Value: Sendable

  /// The value a branch reads when neither it, nor an ancestor, nor a registry on its path sets one.
  static var defaultValue: Value { get }
}
