/// One run of a loader, as a ``FeaturesObserver`` is told of it.
public struct LoadEvent: Sendable {
  /// The feature loaded: `Greeter`.
  public let feature: String
  /// The loader's name: `Greeter.live()`.
  public let implementation: String
  /// Where the loader is registered.
  public let registeredAt: SourceLocation
  /// The branch it loaded in, root first, each scope with its context.
  public let scope: [Diagnostic.ScopeStep]
  /// The loads that requested it, outermost first, each with the site of its request; the last
  /// is this load's own request.
  public let path: [Diagnostic.PathStep]
  /// Whether the loader is `async`.
  public let isAsync: Bool
  /// When the loader started.
  public let start: ContinuousClock.Instant
  /// How long the loader ran, the loads it requested included.
  public let duration: Duration
  /// `nil` when it returned an instance; otherwise the error its requester got (a
  /// `FeatureLoadingFailed` whose cause is what the loader threw).
  public let failure: Diagnostic?
}
