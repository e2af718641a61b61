import Arbor
import Foundation

/// The hour of the day: one value for the whole app, set at the root.
struct Clock: StaticFeature {
  var hour: @Sendable () -> Int

  static var placeholder: Clock {
    Clock(hour: unimplemented("Clock.hour", placeholder: 12))
  }
}
