import ArborDiagnostics
import ArborTesting
import Testing

/// `TestClock` moves only when advanced, and wakes the sleeps whose deadline it reaches.
@Suite struct TestClockTests {
  @Test func itMovesOnlyForwardAndOnlyWhenAdvanced() {
    let clock = TestClock()
    #expect(clock.now == TestClock.Instant(offset: .zero))
    clock.advance(by: .seconds(5))
    clock.advance(by: .seconds(-3))  // never back
    #expect(clock.now.offset == .seconds(5))
    clock.advance(to: TestClock.Instant(offset: .seconds(2)))  // earlier: stays
    clock.advance(to: TestClock.Instant(offset: .milliseconds(7500)))
    #expect(clock.now.offset == .milliseconds(7500))
    #expect(clock.now.duration(to: clock.now.advanced(by: .seconds(1))) == .seconds(1))
    #expect(clock.minimumResolution == .zero)
  }

  @Test func aSleepWakesWhenTheClockReachesItsDeadline() async throws {
    let clock = TestClock()
    let deadline = TestClock.Instant(offset: .seconds(10))
    let woke = try await ends {
      async let sleep: Void = clock.sleep(until: deadline)
      clock.advance(by: .seconds(4))
      clock.advance(by: .seconds(6))
      try await sleep
    }
    #expect(woke)
  }

  @Test func aSleepPastItsDeadlineReturnsAtOnce() async throws {
    let clock = TestClock()
    clock.advance(by: .seconds(1))
    #expect(try await ends { try await clock.sleep(until: TestClock.Instant(offset: .seconds(1))) })
  }

  @Test func aCancelledSleepThrowsCancellationError() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(until: TestClock.Instant(offset: .seconds(3600))) }
    sleeper.cancel()
    let ended = try await ends {
      await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
    #expect(ended)
  }

  /// Whether `body`, run in a task of its own, ends within 30 seconds: a sleep that never wakes fails
  /// the test instead of hanging it. An error `body` throws is recorded.
  func ends(_ body: @escaping @Sendable () async throws -> Void) async throws -> Bool {
    let ended = Lock.make(false)
    Task {
      do { try await body() } catch { Issue.record(error) }
      ended.withLock { $0 = true }
    }
    for _ in 0..<30_000 where !ended.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
    return ended.withLock { $0 }
  }
}
