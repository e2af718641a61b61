import Arbor
import ArborMacros
import Foundation

/// The time of day: one value for the whole tree, so tests can fix it.
@Feature
public struct WallClock: StaticFeature {
  /// Now. Calling it in a test that did not patch it is a test failure; it returns the epoch.
  public var now: @Sendable () -> Date = { Date(timeIntervalSince1970: 0) }

  /// The system's clock.
  public static var system: WallClock { WallClock(now: { Date() }) }
}
