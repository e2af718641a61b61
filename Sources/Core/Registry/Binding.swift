/// One registration as a scope sees it: the implementation, and where and in which scope it was
/// registered.
package final class Binding: Sendable {
  package let registration: Registration
  /// Where `registry.use(...)` was called.
  package let site: SourceLocation
  /// The scope whose registry holds it.
  package let scope: any FeaturesScope.Type
  /// Every registration of the feature in that scope when there is more than one.
  package let conflicts: [(registration: Registration, site: SourceLocation)]

  init(
    registration: Registration, site: SourceLocation, scope: any FeaturesScope.Type,
    conflicts: [(registration: Registration, site: SourceLocation)]
  ) {
    self.registration = registration
    self.site = site
    self.scope = scope
    self.conflicts = conflicts
  }
}
