import Arbor

/// The time, as one value for the whole tree.
///
/// ```swift
/// registry.use(Clock(now: { 42 }))
/// ```
public struct Clock: StaticFeature {
  /// The current time, in seconds.
  public var now: @Sendable () -> Double

  /// A clock that reads `now`.
  ///
  /// - Parameter now: Returns the current time, in seconds.
  public init(now: @escaping @Sendable () -> Double) {
    self.now = now
  }

  /// Reports a call to `now` and returns 0.
  public static var placeholder: Clock { Clock(now: unimplemented("Clock.now", placeholder: 0)) }
}
