import ArborDiagnostics

// Arbor's own lock throughout, which the thread sanitizer sees (it does not see `Mutex` on Linux).

/// A one-way signal between a test and the code it runs elsewhere: raised once, read or waited for
/// with a timeout, so that a broken build fails instead of hanging.
package final class Signal: Sendable {
  private let raised = Lock.make(false)

  package init() {}

  package var isRaised: Bool { raised.withLock { $0 } }

  package func raise() { raised.withLock { $0 = true } }

  /// Whether the signal was raised within `seconds`.
  package func wait(seconds: Double = 30) async -> Bool {
    await eventually(seconds: seconds) { self.isRaised }
  }
}

/// Opened once; what a hung loader or teardown waits for, without a timeout of its own. A test
/// opens it when it ends, too.
package final class Gate: Sendable {
  private let state = Lock<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>.make((false, []))

  package init() {}

  package var isOpen: Bool { state.withLock { $0.isOpen } }

  package func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiting.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  package func open() {
    let waiting = state.withLock { state in
      state.isOpen = true
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }
}

/// Runs `body` as written: in an async function, a request inside it is the synchronous one
/// (there, `try features.instance()` alone would pick the async overload).
package func synchronously<R>(_ body: () throws -> R) rethrows -> R {
  try body()
}
