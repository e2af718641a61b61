import ArborDiagnostics

/// A clock that moves only when a test advances it: give it to a tree to test time-to-live without
/// waiting.
///
/// A tree measures the age of every instance with a time-to-live on the clock its root is given
/// (``/Arbor/FeaturesRoot(observer:clock:file:line:_:)``). Give it a `TestClock`, and an instance
/// expires exactly when the test has advanced the clock past its time-to-live, never before, however
/// slow the machine. A copy of the tree (``TestFeatures(_:file:line:)``) ages its instances on the same
/// clock.
///
/// ```swift
/// let clock = TestClock()
/// let root = FeaturesRoot(clock: clock) { registry in
///   registry.use(AuthToken.live())  // .cacheable(timeToLive: .seconds(60)) { ... }
/// }
/// let first: AuthToken = try root.instance()
/// clock.advance(by: .seconds(61))
/// let second: AuthToken = try root.instance()  // loaded anew: the first expired
/// ```
///
/// `sleep(until:tolerance:)` suspends until the clock is advanced to the deadline, or throws
/// `CancellationError` when its task is cancelled, so code under test that sleeps on the clock
/// wakes when the test says.
public final class TestClock: Clock, Sendable {
  /// A point in a test clock's time: how far it was advanced since it was made.
  public struct Instant: InstantProtocol, Sendable {
    /// The time since the clock was made.
    public let offset: Duration

    /// The instant `offset` after the clock was made.
    ///
    /// - Parameter offset: The time since the clock was made.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant `duration` later.
    ///
    /// - Parameter duration: How far to move; negative moves back.
    /// - Returns: The later (or earlier) instant.
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    ///
    /// - Parameter other: The other instant.
    /// - Returns: `other` minus this instant.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    ///
    /// - Parameters:
    ///   - lhs: An instant.
    ///   - rhs: Another instant.
    /// - Returns: `true` when `lhs` is earlier.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private let state = Lock.make(State())

  private struct State {
    var now = Instant(offset: .zero)
    var nextSleeper = 0
    var sleepers: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]

    /// Removes and returns the sleeps whose deadline the clock reached.
    mutating func dueSleepers() -> [CheckedContinuation<Void, any Error>] {
      let due = sleepers.filter { $0.value.deadline <= now }
      for id in due.keys { sleepers[id] = nil }
      return due.values.map(\.continuation)
    }
  }

  /// A clock at its zero instant, which moves only with ``advance(by:)`` and ``advance(to:)``.
  public init() {}

  /// The clock's current instant.
  public var now: Instant { state.withLock { $0.now } }

  /// How many sleeps wait for the clock to move: a test advances it once the code it drives sleeps.
  package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The smallest step the clock can take: it moves exactly as it is advanced.
  public var minimumResolution: Duration { .zero }

  /// Moves the clock `duration` forward and wakes every sleep whose deadline it reached.
  ///
  /// ```swift
  /// clock.advance(by: .seconds(61))
  /// ```
  ///
  /// - Parameter duration: How far to move; a negative duration does not move the clock.
  public func advance(by duration: Duration) {
    wake(
      state.withLock { state in
        state.now = state.now.advanced(by: max(duration, .zero))
        return state.dueSleepers()
      })
  }

  /// Moves the clock forward to `instant`, if it is later than now, and wakes every sleep whose
  /// deadline it reached.
  ///
  /// - Parameter instant: Where to move the clock.
  public func advance(to instant: Instant) {
    wake(
      state.withLock { state in
        state.now = max(state.now, instant)
        return state.dueSleepers()
      })
  }

  /// Suspends until the clock is advanced to `deadline`; returns at once if it is there already.
  ///
  /// - Parameters:
  ///   - deadline: The instant to wake at.
  ///   - tolerance: Ignored: the clock wakes exactly at its deadline.
  /// - Throws: `CancellationError` when the sleeping task is cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = state.withLock { state in
      defer { state.nextSleeper += 1 }
      return state.nextSleeper
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let isDue = state.withLock { state in
          if state.now >= deadline || Task.isCancelled { return true }
          state.sleepers[id] = (deadline, continuation)
          return false
        }
        if isDue { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
    }
    try Task.checkCancellation()
  }

  private func wake(_ sleepers: [CheckedContinuation<Void, any Error>]) {
    for sleeper in sleepers { sleeper.resume() }
  }
}
