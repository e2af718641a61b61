/// A renewal as a ``FeaturesObserver`` is told of it: what caused it, what it renewed, and how
/// long its teardowns took.
public struct RenewalEvent: Sendable {
  /// What started a renewal.
  public enum Cause: Sendable, Equatable {
    /// ``Features/refresh(_:context:file:line:)``, called where it says.
    case refresh(SourceLocation)
    /// A request found an instance older than its time-to-live.
    case expired
  }

  /// What started it.
  public let cause: Cause
  /// The instances it renewed, dependents first, the one refreshed or expired last.
  public let renewed: [RenewedInstance]
  /// When it started to wait for loads in flight and tear down.
  public let start: ContinuousClock.Instant
  /// How long that took.
  public let duration: Duration
  /// How many teardowns threw or passed their time limit.
  public let failures: Int
}
