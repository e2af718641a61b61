import Synchronization

/// The outcome of a ``FeaturesService``'s start-up validation, published once, for any number of
/// tasks waiting on it.
final class ValidationOutcome: Sendable {
  private enum State {
    case waiting([CheckedContinuation<Void, any Error>])
    case done(Result<Void, any Error>)
  }

  private let state = Mutex(State.waiting([]))

  /// Publishes the outcome and resumes every waiter; a later outcome is ignored.
  func publish(_ result: Result<Void, any Error>) {
    let waiters: [CheckedContinuation<Void, any Error>] = state.withLock { state in
      guard case .waiting(let waiters) = state else { return [] }
      state = .done(result)
      return waiters
    }
    for waiter in waiters { waiter.resume(with: result) }
  }

  /// Waits for the outcome: returns when validation passed, throws its failure otherwise.
  func wait() async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let result: Result<Void, any Error>? = state.withLock { state in
        switch state {
        case .waiting(let waiters):
          state = .waiting(waiters + [continuation])
          return nil
        case .done(let result):
          return result
        }
      }
      if let result { continuation.resume(with: result) }
    }
  }
}
