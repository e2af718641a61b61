import Synchronization

/// Suspends each caller of `arriveAndWait()` until `count` callers have arrived.
final class Gate: Sendable {
  private struct State {
    var arrived = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let count: Int
  private let state = Mutex(State())

  init(count: Int) { self.count = count }

  func arriveAndWait() async {
    await withCheckedContinuation { continuation in
      let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
        state.arrived += 1
        state.waiters.append(continuation)
        guard state.arrived >= count else { return [] }
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in ready { waiter.resume() }
    }
  }
}
