import ArborDiagnostics

/// Runs work that may not end (a load or a teardown that hangs) within a time limit on the root's
/// clock (so a test clock drives it), without waiting for it past the limit.
///
/// The work runs in a task of its own (it inherits the caller's task-locals and priority, not its
/// cancellation); past the limit it is cancelled and left to end on its own, and the caller goes on.
enum TimeLimit {
  /// The outcome of `work`, or `nil` when `limit` passed first; without a limit, `work` runs in the
  /// caller's task.
  static func run<T: Sendable>(
    within limit: Duration?, on clock: TreeRenewals, _ work: @escaping @Sendable () async throws -> T
  ) async -> Result<T, any Error>? {
    guard let limit else {
      do { return .success(try await work()) } catch { return .failure(error) }
    }
    let race = Race<T>()
    return await withCheckedContinuation { continuation in
      race.begin(continuation)
      let worker = Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
        race.end(with: outcome)
      }
      let timer = Task {
        try? await clock.sleep(limit)
        if !Task.isCancelled, race.end(with: nil) { worker.cancel() }
      }
      race.whenEnded { timer.cancel() }
    }
  }

  /// Who ends first: the work or the timer. The continuation is resumed once.
  private final class Race<T: Sendable>: Sendable {
    private struct State {
      var continuation: CheckedContinuation<Result<T, any Error>?, Never>?
      var ended = false
      var onEnd: (@Sendable () -> Void)?
    }
    private let state = Lock.make(State())

    func begin(_ continuation: CheckedContinuation<Result<T, any Error>?, Never>) {
      state.withLock { $0.continuation = continuation }
    }

    /// Runs `body` once the race ended (now, if it has).
    func whenEnded(_ body: @escaping @Sendable () -> Void) {
      let ended = state.withLock { state in
        if !state.ended { state.onEnd = body }
        return state.ended
      }
      if ended { body() }
    }

    /// Ends the race with `outcome`, unless it ended already.
    ///
    /// - Returns: Whether this call ended it.
    @discardableResult
    func end(with outcome: Result<T, any Error>?) -> Bool {
      let taken = state.withLock {
        state -> (CheckedContinuation<Result<T, any Error>?, Never>, (@Sendable () -> Void)?)? in
        guard !state.ended, let continuation = state.continuation else { return nil }
        state.ended = true
        defer { (state.continuation, state.onEnd) = (nil, nil) }
        return (continuation, state.onEnd)
      }
      guard let (continuation, onEnd) = taken else { return false }
      continuation.resume(returning: outcome)
      onEnd?()
      return true
    }
  }
}
