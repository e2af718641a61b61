import ArborDiagnostics

/// A clock that moves only when a test advances it, for idle-time rules.
final class ManualClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let current = Lock.make(Instant(offset: .zero))

  var now: Instant { current.withLock { $0 } }
  var minimumResolution: Duration { .nanoseconds(1) }

  /// Moves the clock forward.
  func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    while now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
  }
}
