import Arbor
import Foundation

/// The hour of the day: one value for the whole app, set at the root.
struct Clock: StaticFeature {
  var hour: @Sendable () -> Int

  static var placeholder: Clock {
    Clock(hour: unimplemented("Clock.hour", placeholder: 12))
  }
}

extension Clock {
  /// The hour of the system's clock, in its time zone.
  static var system: Clock {
    Clock(hour: { Calendar.current.component(.hour, from: Date()) })
  }
}
