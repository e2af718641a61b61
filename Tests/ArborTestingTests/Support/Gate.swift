import ArborDiagnostics

/// Opened once; what a hung loader waits for. A test opens it when it ends, too.
final class Gate: Sendable {
  private let state = Lock<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>.make((false, []))

  var isOpen: Bool { state.withLock { $0.isOpen } }

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiting.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  func open() {
    let waiting = state.withLock { state in
      state.isOpen = true
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }
}
