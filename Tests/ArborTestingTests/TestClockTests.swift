import ArborDiagnostics
import ArborTestSupport
import ArborTesting
import Dispatch
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

  @Test func aSleepWakesWhenTheClockReachesItsDeadlineAndNotBefore() async throws {
    let clock = TestClock()
    let executor = WatchedExecutor()
    let wokeAt = Lock.make(TestClock.Instant?.none)
    let sleeper = Task(executorPreference: executor) {
      try await clock.sleep(until: TestClock.Instant(offset: .seconds(10)))
      wokeAt.withLock { $0 = clock.now }
    }
    // Suspended in the sleep, its only suspension point: the task ran all it was given, and the
    // sleep did not return.
    try #require(await executor.isIdle(), "the sleeper never ran")
    try #require(wokeAt.withLock { $0 } == nil, "the sleep returned before the clock moved")

    // Waking a sleep resumes its task, which hands the executor a job inside `advance`: no job,
    // no wake-up.
    let jobs = executor.jobs
    clock.advance(by: .seconds(4))
    clock.advance(to: TestClock.Instant(offset: .milliseconds(9_999)))
    #expect(executor.jobs == jobs, "woken before its deadline")
    clock.advance(by: .milliseconds(1))
    #expect(executor.jobs == jobs + 1, "not woken by the advance that reached its deadline")
    #expect(await eventually(seconds: 30) { wokeAt.withLock { $0 } != nil }, "woken, but never ran on")
    #expect(wokeAt.withLock { $0 } == TestClock.Instant(offset: .seconds(10)))
  }

  @Test func aSleepPastItsDeadlineReturnsAtOnce() async throws {
    let clock = TestClock()
    clock.advance(by: .seconds(1))
    #expect(try await ends { try await clock.sleep(until: TestClock.Instant(offset: .seconds(1))) })
  }

  @Test func aCancelledSleepThrowsCancellationError() async throws {
    let clock = TestClock()
    let executor = WatchedExecutor()
    let returned = Lock.make(false)
    let sleeper = Task(executorPreference: executor) {
      try await clock.sleep(until: TestClock.Instant(offset: .seconds(3600)))
      returned.withLock { $0 = true }
    }
    // Cancelled while it sleeps, not before it started to.
    try #require(await executor.isIdle(), "the sleeper never ran")
    try #require(!returned.withLock { $0 }, "the sleep returned before the clock moved")
    sleeper.cancel()
    let ended = try await ends {
      await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
    #expect(ended)
    #expect(clock.now.offset == .zero)
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

/// A task executor that runs its jobs one at a time on a queue of its own and counts them: how a test
/// knows that a task preferring it is suspended (every job it was given has run, and the task has
/// not ended), and that something resumed it (a job was given).
final class WatchedExecutor: TaskExecutor {
  private let counts = Lock.make((given: 0, ran: 0))
  private let queue = DispatchQueue(label: "ArborTestingTests.WatchedExecutor")

  func enqueue(_ job: consuming ExecutorJob) {
    counts.withLock { $0.given += 1 }
    let job = UnownedJob(job)
    queue.async {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
      self.counts.withLock { $0.ran += 1 }
    }
  }

  /// How many jobs the executor was given.
  var jobs: Int { counts.withLock { $0.given } }

  /// Whether, within 30 seconds, the executor was given work and ran all of it: a task that prefers
  /// it and has not ended is then suspended.
  func isIdle() async -> Bool {
    await eventually(seconds: 30) { [counts] in counts.withLock { $0.given > 0 && $0.given == $0.ran } }
  }
}
