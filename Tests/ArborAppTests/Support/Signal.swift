import ArborTestSupport
import Synchronization

/// A one-way signal between a test and the code it runs elsewhere: raised once, waited for with a
/// timeout, so that a broken build fails instead of hanging.
nonisolated final class Signal: Sendable {
  private let raised = Mutex(false)

  var isRaised: Bool { raised.withLock { $0 } }

  func raise() { raised.withLock { $0 = true } }

  /// Whether the signal was raised within `seconds`.
  func wait(seconds: Double = 30) async -> Bool {
    await eventually(seconds: seconds) { self.isRaised }
  }
}

/// Runs `body` as a synchronous call, so that Swift picks the synchronous overload of a request in
/// an `async` context.
nonisolated func synchronously<R>(_ body: () throws -> R) rethrows -> R {
  try body()
}

/// Suspends, letting the main actor run other work, until `condition`, read on the main actor,
/// holds, for at most `seconds`; whether it did.
func eventuallyOnTheMainActor(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
  for _ in 0..<Int(seconds * 1_000) {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return condition()
}
