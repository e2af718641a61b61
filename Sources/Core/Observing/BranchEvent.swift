/// A branch made in an observed tree, as a ``FeaturesObserver`` is told of it.
public struct BranchEvent: Sendable {
  /// The branch, root first, each scope with its context.
  public let scope: [Diagnostic.ScopeStep]
  /// When it happened.
  public let time: ContinuousClock.Instant
}
