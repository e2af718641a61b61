import Arbor
import Foundation

/// The time of day: one value for the whole tree, so tests can fix it.
public struct WallClock: StaticFeature {
  /// Now.
  public var now: @Sendable () -> Date

  /// Creates a clock.
  public init(now: @escaping @Sendable () -> Date) {
    self.now = now
  }

  /// Calling it in a test that did not patch it is a test failure.
  public static var placeholder: WallClock {
    WallClock(now: unimplemented("WallClock.now", placeholder: Date(timeIntervalSince1970: 0)))
  }

  /// The system's clock.
  public static var system: WallClock { WallClock(now: { Date() }) }
}
