/// One teardown run as its branch closed, as a ``FeaturesObserver`` is told of it.
///
/// Like ``LoadEvent``, it keeps types and the branch, and makes text of them only when asked.
public struct TeardownEvent: Sendable {
  let featureType: any Feature.Type
  private let implementationName: ImplementationName
  /// Where the loader is registered; `nil` for a loader a test container ran (`features.load`).
  public let registeredAt: SourceLocation?
  private let branchPath: ScopePath
  /// When the teardown started.
  public let start: ContinuousClock.Instant
  /// How long it ran.
  public let duration: Duration
  private let error: (any Error)?

  init(
    _ teardown: PendingTeardown, branchPath: ScopePath, start: ContinuousClock.Instant, duration: Duration,
    error: (any Error)?
  ) {
    featureType = teardown.feature
    implementationName = teardown.registration.implementationName
    registeredAt = teardown.binding?.site
    self.branchPath = branchPath
    self.start = start
    self.duration = duration
    self.error = error
  }

  /// The feature whose instance was torn down: `Database`.
  public var feature: String { String(describing: featureType) }
  /// Its loader's name: `Database.live()`.
  public var implementation: String { implementationName.text }
  /// The branch that cached the instance, root first, each scope with its context.
  public var scope: [Diagnostic.ScopeStep] { branchPath.diagnosticSteps }
  /// `nil` when the teardown returned; otherwise what it threw.
  public var failure: Diagnostic? { error.map(Diagnostic.init(describing:)) }
}
