import Synchronization

/// Suspends each caller of `arriveAndWait()` until `count` callers have arrived, or `timeout` has
/// passed.
public final class Gate: Sendable {
  private struct State {
    var arrived = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let count: Int
  private let state = Mutex(State())

  /// A gate that opens when `count` callers have arrived.
  public init(count: Int) { self.count = count }

  /// Waits for the others; `false` when `timeout` passed first (the test then fails on it).
  @discardableResult
  public func arriveAndWait(timeout: Duration = .seconds(60)) async -> Bool {
    let arrived = state.withLock { state in
      state.arrived += 1
      return state.arrived
    }
    if arrived >= count { openAll() }
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await withCheckedContinuation { continuation in
          let open = self.state.withLock { state in
            if state.arrived >= self.count { return true }
            state.waiters.append(continuation)
            return false
          }
          if open { continuation.resume() }
        }
        return true
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let first = await group.next() ?? false
      // After a timeout the waiter is still there: let it go so the group can end.
      self.openAll()
      group.cancelAll()
      return first
    }
  }

  private func openAll() {
    let waiters = state.withLock { state in
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
