import Configuration
import Synchronization

/// The access reporter of a ``FeaturesConfiguration``'s reader: it hands the event of a read that
/// Arbor makes back to it, then passes every event on to the app's reporter.
///
/// A `ConfigReader` returns only the value it read; which provider gave it, whether it is secret, and
/// why a value present did not parse are said to its access reporter alone, synchronously, on the
/// task that reads.
final class AccessRecorder: AccessReporter {
  /// The app's reporter, if it gave one.
  let upstream: (any AccessReporter)?

  /// Where the event of the read in progress on this task goes.
  @TaskLocal static var recording: Recording?

  init(upstream: (any AccessReporter)?) {
    self.upstream = upstream
  }

  func report(_ event: AccessEvent) {
    Self.recording?.event.withLock { $0 = event }
    upstream?.report(event)
  }

  /// Reads with `read`, and returns what it read with the event the read reported.
  static func recording<Value>(_ read: () -> Value?) -> (value: Value?, event: AccessEvent?) {
    let recording = Recording()
    let value = $recording.withValue(recording) { read() }
    return (value, recording.event.withLock { $0 })
  }

  /// The event of one read.
  final class Recording: Sendable {
    let event = Mutex<AccessEvent?>(nil)
  }
}
