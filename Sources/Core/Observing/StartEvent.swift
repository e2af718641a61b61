/// A start of a branch (``Features/start(timeout:file:line:isolation:)``), once it ended: every
/// step, in the order each began. `start()` returns it; a ``FeaturesObserver`` is told of it.
public struct StartEvent: Sendable {
  /// One eager load or before-serving work of the start.
  public struct Step: Sendable {
    /// What ran: `Database.live()` for an eager feature, `before serving (App/Main.swift:12)` for work.
    public let name: String
    /// The eager feature, for a load; `nil` for before-serving work.
    public let feature: String?
    /// When it began.
    public let start: ContinuousClock.Instant
    /// How long it ran; up to its time limit when it passed it.
    public let duration: Duration
    /// `nil` when it ended well; otherwise why not.
    public let failure: Diagnostic?
  }

  let branchPath: ScopePath
  /// When the start began.
  public let start: ContinuousClock.Instant
  /// How long it took, the teardown of a failed start included.
  public let duration: Duration
  /// The eager loads (concurrent), then the before-serving work (in order).
  public let steps: [Step]
  /// `nil` when the branch started; otherwise the diagnostic `start()` threw.
  public let failure: Diagnostic?

  /// The started branch, root first, each scope with its context.
  public var scope: [Diagnostic.ScopeStep] { branchPath.diagnosticSteps }
}
