import ArborDiagnostics

/// Runs work that may not end (a load or a teardown that hangs) within a time limit on the root's
/// clock (so a test clock drives it), or until a start stops waiting for it, without waiting for it
/// past that.
///
/// The work runs in a task of its own (it inherits the caller's task-locals and priority, not its
/// cancellation); past the limit, or once stopped, it is cancelled and left to end on its own, and
/// the caller goes on.
enum TimeLimit {
  /// How the work ended for its caller.
  enum Ending<T: Sendable>: Sendable {
    case finished(Result<T, any Error>)
    /// The limit passed first.
    case timedOut
    /// The caller stopped waiting first (``Stop``), for this reason.
    case stopped(String)
  }

  /// Tells every work waited for under it that its caller stops waiting: a start that failed.
  final class Stop: Sendable {
    private let state = Lock<(reason: String?, onStop: [@Sendable (String) -> Void])>.make((nil, []))

    /// Stops waiting for every work run under it, now and from now on, for `reason`; the first
    /// reason stands.
    func stop(because reason: String) {
      let (reason, onStop) = state.withLock { state in
        if state.reason == nil { state.reason = reason }
        defer { state.onStop = [] }
        return (state.reason!, state.onStop)
      }
      for body in onStop { body(reason) }
    }

    /// Runs `body` with the reason once stopped (now, if it is).
    fileprivate func whenStopped(_ body: @escaping @Sendable (String) -> Void) {
      let reason = state.withLock { state in
        if state.reason == nil { state.onStop.append(body) }
        return state.reason
      }
      if let reason { body(reason) }
    }
  }

  /// How `work` ended: its outcome, or its limit or `stop` first; without either, `work` runs in
  /// the caller's task.
  static func run<T: Sendable>(
    within limit: Duration?, on clock: TreeRenewals, until stop: Stop? = nil,
    _ work: @escaping @Sendable () async throws -> T
  ) async -> Ending<T> {
    guard limit != nil || stop != nil else {
      do { return .finished(.success(try await work())) } catch { return .finished(.failure(error)) }
    }
    let race = Race<T>()
    return await withCheckedContinuation { continuation in
      race.begin(continuation)
      let worker = Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
        race.end(with: .finished(outcome))
      }
      let timer = limit.map { limit in
        Task {
          try? await clock.sleep(limit)
          if !Task.isCancelled, race.end(with: .timedOut) { worker.cancel() }
        }
      }
      stop?.whenStopped { reason in if race.end(with: .stopped(reason)) { worker.cancel() } }
      race.whenEnded { timer?.cancel() }
    }
  }

  /// Who ends first: the work, the timer or the stop. The continuation is resumed once.
  private final class Race<T: Sendable>: Sendable {
    private struct State {
      var continuation: CheckedContinuation<Ending<T>, Never>?
      var ended = false
      var onEnd: (@Sendable () -> Void)?
    }
    private let state = Lock.make(State())

    func begin(_ continuation: CheckedContinuation<Ending<T>, Never>) {
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

    /// Ends the race with `ending`, unless it ended already.
    ///
    /// - Returns: Whether this call ended it.
    @discardableResult
    func end(with ending: Ending<T>) -> Bool {
      let taken = state.withLock { state -> (CheckedContinuation<Ending<T>, Never>, (@Sendable () -> Void)?)? in
        guard !state.ended, let continuation = state.continuation else { return nil }
        state.ended = true
        defer { (state.continuation, state.onEnd) = (nil, nil) }
        return (continuation, state.onEnd)
      }
      guard let (continuation, onEnd) = taken else { return false }
      continuation.resume(returning: ending)
      onEnd?()
      return true
    }
  }
}
