/// One run of a loader, as a ``FeaturesObserver`` is told of it.
///
/// It keeps the types, sites and branch it is about, and makes text of them only when asked: an
/// observer that looks at durations alone pays for no type name or context description.
public struct LoadEvent: Sendable {
  /// The feature type loaded.
  let featureType: any Feature.Type
  private let implementationName: ImplementationName
  /// Where the loader is registered.
  public let registeredAt: SourceLocation
  private let branchPath: ScopePath
  /// The loads in progress that led to this one, outermost first.
  let requesters: [LoadStep]
  /// Where this load was requested.
  public let requestedAt: SourceLocation
  /// Whether the loader is `async`.
  public let isAsync: Bool
  /// Whether the loader ran on the main actor.
  public let runsOnMainActor: Bool
  /// When the loader started.
  public let start: ContinuousClock.Instant
  /// How long the loader ran, the loads it requested included, on the root's clock.
  public let duration: Duration
  private let error: (any Error)?

  init(
    feature: any Feature.Type, binding: Binding, branchPath: ScopePath, requesters: [LoadStep],
    requestedAt: SourceLocation, start: ContinuousClock.Instant, duration: Duration, error: (any Error)?
  ) {
    featureType = feature
    implementationName = binding.registration.implementationName
    registeredAt = binding.site
    self.branchPath = branchPath
    self.requesters = requesters
    self.requestedAt = requestedAt
    isAsync = binding.registration.isAsync
    runsOnMainActor = binding.registration.runsOnMainActor
    self.start = start
    self.duration = duration
    self.error = error
  }

  /// The feature loaded: `Greeter`.
  public var feature: String { String(describing: featureType) }
  /// The loader's name: `Greeter.live()`.
  public var implementation: String { implementationName.text }
  /// The branch it loaded in, root first, each scope with its context.
  public var scope: [Diagnostic.ScopeStep] { branchPath.diagnosticSteps }
  /// The loads that requested it, outermost first, each with the site of its request; the last
  /// is this load's own request.
  public var path: [Diagnostic.PathStep] { Diagnostic.path(requesters, closingWith: featureType, at: requestedAt) }
  /// `nil` when it returned an instance; otherwise the error its requester got (a
  /// `FeatureLoadingFailed` whose cause is what the loader threw).
  public var failure: Diagnostic? { error.map(Diagnostic.init(describing:)) }
}

extension LoadEvent {
  /// The load's category in a trace: `load`, `async load`, `main-actor load` or
  /// `async main-actor load`.
  var category: String {
    (isAsync ? "async " : "") + (runsOnMainActor ? "main-actor load" : "load")
  }
}
