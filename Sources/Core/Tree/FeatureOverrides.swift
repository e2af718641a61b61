/// Test containers replace resolution through this hook; a tree without one never consults it.
package protocol FeatureOverrides: AnyObject, Sendable {
  /// The instance a request gets instead of resolving, if any.
  func instance<F: Feature>(of feature: F.Type, context: F.Context) -> F?
  /// The context of a scope that no branch on the path carries, if the container provides one.
  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context?
  /// Whether a feature nobody registered resolves to its placeholder instead of failing.
  var resolvesPlaceholders: Bool { get }
}
