/// A branch made in an observed tree, as a ``FeaturesObserver`` is told of it.
///
/// Its scope path is made into text only when asked.
public struct BranchEvent: Sendable {
  private let branchPath: ScopePath
  /// When it happened.
  public let time: ContinuousClock.Instant

  init(branchPath: ScopePath, time: ContinuousClock.Instant) {
    self.branchPath = branchPath
    self.time = time
  }

  /// The branch, root first, each scope with its context.
  public var scope: [Diagnostic.ScopeStep] { branchPath.diagnosticSteps }
}
