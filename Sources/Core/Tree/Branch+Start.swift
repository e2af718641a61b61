extension Branch {
  /// Starts this branch once, however many callers ask: the first runs the start (in a task of its
  /// own, so that no caller's cancellation cuts it short), the others wait for its outcome.
  ///
  /// - Parameter features: The branch's features, which the start's loads request through.
  /// - Returns: The start that ran, `nil` for a caller inside it.
  func start(through features: Features, timeout: Duration?, at location: SourceLocation) async throws -> StartEvent? {
    // A start that ended answers with its outcome, even once the branch closed (as a failed start
    // closes it); a closed branch does not begin one.
    let action = state.withLock {
      state -> BranchStart<CheckedContinuation<StartUp.Outcome, Never>, StartUp.Outcome>.Action? in
      if case .notStarted = state.start.state, isClosed { return nil }
      return state.start.start()
    }
    let outcome: StartUp.Outcome
    switch action {
    case nil:
      throw closed(.using("start()"), at: location)
    case .ended(let ended)?:
      outcome = ended
    case .wait? where StartUp.runsInCurrentTask(self):
      // From inside the start (an eager loader or before-serving work starting its own branch):
      // waiting would never end, and the start it is part of ends the branch's.
      return nil
    case .wait?:
      outcome = await withCheckedContinuation { continuation in
        if let ended = state.withLock({ $0.start.wait(continuation) }) { continuation.resume(returning: ended) }
      }
    case .run?:
      let startUp = StartUp(branch: self, features: features, timeout: timeout, site: location)
      outcome = await Task {
        await StartUp.$running.withValue(StartUp.running.union([ObjectIdentifier(self)])) { await startUp.run() }
      }.value
      for waiter in state.withLock({ $0.start.finish(outcome) }) { waiter.resume(returning: outcome) }
    }
    return try outcome.get()
  }
}
