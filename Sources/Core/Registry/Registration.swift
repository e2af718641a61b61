/// One registered implementation: a static value or a loader, with its name and site.
package final class Registration: Sendable {
  package let feature: any Feature.Type
  /// How its instances live.
  package let lifetime: Lifetime
  /// A `Box<F>` for a static feature, a `Loader<F>` otherwise.
  package let payload: any AnyObject & Sendable
  /// The implementation's name, as parts: see ``implementation``.
  package let implementationName: ImplementationName
  package let location: SourceLocation
  /// Whether the loader is `async`: only `try await features.instance()` can run it.
  package let isAsync: Bool
  /// Whether the loader, and the teardown, run on the main actor.
  package let runsOnMainActor: Bool
  /// A cacheable's `Teardown<F>`, if it has one: run for each instance when its branch closes.
  package let teardown: (any AnyObject & Sendable)?
  /// How long a cached instance serves before a request renews it; `nil` for as long as its branch
  /// lives.
  package let timeToLive: Duration?

  /// - Parameter lifetime: `cacheable` for every cacheable: a feature with a context makes it
  ///   ``Lifetime/cacheablePerContext``.
  /// - Parameter isAsync: Whether `payload` is an `AsyncLoader`: the factories know, which spares
  ///   a dynamic conformance check per new feature type.
  package init<F: Feature>(
    feature: F.Type, lifetime: Lifetime, payload: any AnyObject & Sendable, isAsync: Bool,
    runsOnMainActor: Bool = false, implementation: ImplementationName,
    location: SourceLocation, teardown: (any AnyObject & Sendable)? = nil, timeToLive: Duration? = nil
  ) {
    self.feature = feature
    self.lifetime = Lifetime(lifetime, of: feature)
    self.payload = payload
    implementationName = implementation
    self.location = location
    self.isAsync = isAsync
    self.runsOnMainActor = runsOnMainActor
    self.teardown = teardown
    self.timeToLive = timeToLive
  }

  package var featureID: ObjectIdentifier { ObjectIdentifier(feature) }

  /// The implementation's name: `Greeter.live()`, `Clock value`, `LiveGreeter`.
  package var implementation: String { implementationName.text }
}
