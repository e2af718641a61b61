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
  /// How the registration takes part in its branch's start and close.
  package let lifecycle: LifecycleOptions

  init(
    registration: Registration, site: SourceLocation, scope: any FeaturesScope.Type,
    conflicts: [(registration: Registration, site: SourceLocation)], lifecycle: LifecycleOptions = LifecycleOptions()
  ) {
    self.registration = registration
    self.site = site
    self.scope = scope
    self.conflicts = conflicts
    self.lifecycle = lifecycle
  }

  /// What `registry.use(_:eager:startTimeLimit:teardownTimeLimit:)` said of a registration.
  package struct LifecycleOptions: Sendable {
    /// Whether `start()` loads it.
    package var isEager = false
    /// How long its load may take in `start()`.
    package var startTimeLimit: Duration?
    /// How long its teardown may take in a close.
    package var teardownTimeLimit: Duration?
  }
}
