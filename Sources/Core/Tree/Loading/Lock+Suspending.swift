extension Lock {
  /// Suspends until `ended` holds of the state, without blocking a thread: the continuation waits
  /// in `waiters`, which whoever ends it resumes (under the lock, after making `ended` hold).
  func suspend(
    until ended: (State) -> Bool, waitingIn waiters: WritableKeyPath<State, [CheckedContinuation<Void, Never>]>
  ) async {
    await withCheckedContinuation { continuation in
      let isEnded = withLock { state in
        if ended(state) { return true }
        state[keyPath: waiters].append(continuation)
        return false
      }
      if isEnded { continuation.resume() }
    }
  }
}
