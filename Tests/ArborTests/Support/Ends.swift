import ArborDiagnostics
import Testing

/// Something a loader or teardown set up later than the tree reaches: a `KeyedBranches`, say.
final class Later<Value: Sendable>: Sendable {
  // Arbor's lock, which the thread sanitizer sees (it does not see `Mutex` on Linux).
  private let value = Lock<Value?>.make(nil)
  func set(_ new: Value) { value.withLock { $0 = new } }
  var get: Value { value.withLock { $0! } }
  /// Lets go of the value: a tree whose loaders reach the tree itself through it is otherwise never
  /// freed.
  func clear() { value.withLock { $0 = nil } }
}

/// Runs `body` in a task of its own and waits for it, at most `seconds`: a close that waits for
/// itself fails the test instead of hanging it. An error `body` throws is recorded.
func ends(within seconds: Double = 30, _ body: @escaping @Sendable () async throws -> Void) async -> Bool {
  let ended = Flag()
  let failure = Lock<(any Error)?>.make(nil)
  Task {
    do { try await body() } catch { failure.withLock { $0 = error } }
    ended.raise()
  }
  guard await ended.suspendUntilRaised(seconds: seconds) else { return false }
  if let error = failure.withLock({ $0 }) { Issue.record(error) }
  return true
}
