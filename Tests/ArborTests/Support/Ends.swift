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

/// What ``ended(within:_:)`` throws when its body did not end in time.
struct DidNotEnd: Error, CustomStringConvertible {
  var seconds: Double
  var description: String { "did not end within \(seconds) seconds" }
}

/// Runs `body` in a task of its own and returns what it returned, or throws what it threw; throws
/// ``DidNotEnd`` after `seconds`: a call that waits for itself fails the test instead of hanging
/// it. For a call whose error a test asserts: `#expect(throws:) { try await ended { … } }`.
func ended<R: Sendable>(within seconds: Double = 30, _ body: @escaping @Sendable () async throws -> R) async throws -> R
{
  let ended = Flag()
  let outcome = Lock<Result<R, any Error>?>.make(nil)
  Task {
    let result: Result<R, any Error>
    do { result = .success(try await body()) } catch { result = .failure(error) }
    outcome.withLock { $0 = result }
    ended.raise()
  }
  guard await ended.suspendUntilRaised(seconds: seconds) else { throw DidNotEnd(seconds: seconds) }
  return try outcome.withLock { $0! }.get()
}
