import ArborDiagnostics

/// Runs work that may hang within a time limit on the root's clock (which a test clock drives), or
/// until a start stops waiting: the work, in a task with the caller's task-locals, is then cancelled
/// and left to end on its own.
enum TimeLimit {
  /// How the work ended for its caller: its outcome, its limit first, or a ``Stop`` first.
  enum Ending<T: Sendable>: Sendable {
    case finished(Result<T, any Error>)
    case timedOut
    case stopped(String)
  }

  /// A failed start's: its caller stops waiting for every work under it.
  final class Stop: Sendable {
    private let state = Lock<(reason: String?, onStop: [@Sendable (String) -> Void])>.make((nil, []))

    /// Now and from now on; the first reason stands.
    func stop(because reason: String) {
      let (reason, onStop) = state.withLock { state in
        if state.reason == nil { state.reason = reason }
        defer { state.onStop = [] }
        return (state.reason!, state.onStop)
      }
      for body in onStop { body(reason) }
    }

    fileprivate func whenStopped(_ body: @escaping @Sendable (String) -> Void) {
      let reason = state.withLock { state in
        if state.reason == nil { state.onStop.append(body) }
        return state.reason
      }
      if let reason { body(reason) }
    }
  }

  /// How `work` ended; without a limit or a `stop`, `work` runs in the caller's task.
  static func run<T: Sendable>(
    within limit: Duration?, on clock: TreeRenewals, until stop: Stop? = nil,
    _ work: @escaping @Sendable () async throws -> T
  ) async -> Ending<T> {
    @Sendable func finish() async -> Ending<T> {
      do { return .finished(.success(try await work())) } catch { return .finished(.failure(error)) }
    }
    guard limit != nil || stop != nil else { return await finish() }
    let race = Race<T>()
    return await withCheckedContinuation { continuation in
      race.begin(continuation)
      let worker = Task { race.end(with: await finish()) }
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

    func whenEnded(_ body: @escaping @Sendable () -> Void) {
      let ended = state.withLock { state in
        if !state.ended { state.onEnd = body }
        return state.ended
      }
      if ended { body() }
    }

    /// Ends the race with `ending`, unless it ended already: returns whether this call ended it.
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
