/// A synchronous load in progress that other requests wait for: its owner thread, and its outcome
/// once the owner finishes.
final class InFlight: WaitGraph.Node, @unchecked Sendable {
  // Sendable: `owner` is immutable; `outcome` is a lock.
  let owner: LoadingThread
  /// The outcome, written once by the owner (waiting threads block until then), and the closes
  /// suspended until it is.
  private let state = Lock<State>.makeWaitable(State())

  private struct State {
    var outcome: Result<AnyObject, any Error>?
    var closes: [CheckedContinuation<Void, Never>] = []
  }

  init(owner: LoadingThread) {
    self.owner = owner
  }

  var isFinished: Bool { state.withLock { $0.outcome != nil } }

  /// A load waits for its owner thread, which may be waiting for another load.
  var waitsImplicitlyFor: (any WaitGraph.Node)? { owner }

  func finish(_ outcome: Result<AnyObject, any Error>) {
    let closes = state.withLockWakingWaiters { state in
      state.outcome = outcome
      defer { state.closes = [] }
      return state.closes
    }
    for close in closes { close.resume() }
  }

  /// Suspends until the load ends, whatever its outcome: how a closing branch waits for a load in
  /// flight without blocking a thread. Not cancellable, as a close is not.
  func ended() async {
    await state.suspend(until: { $0.outcome != nil }, waitingIn: \.closes)
  }

  /// The requests (threads) and the closes waiting for this load now: read by ``Features/waits``, a
  /// test hook.
  var waits: (requests: Int, closes: Int) {
    (WaitGraph.waitCount(for: self), state.withLock { $0.closes.count })
  }

  enum Wait {
    case finished(Result<AnyObject, any Error>)
    /// Waiting would close a loop of threads waiting for each other: the frames of the threads in
    /// the loop, starting with the owner of this load.
    case deadlock([LoadStep])
  }

  /// Blocks until the owner finishes, unless waiting would deadlock.
  func wait(as waiter: LoadingThread) -> Wait {
    let loop = WaitGraph.add(waiter, waitingFor: self) { loop in
      // Each thread on the loop waits for a load that can only finish after the waiter's, so none
      // can pop its frames while they are read.
      loop.compactMap { $0 as? LoadingThread }.flatMap(\.frames)
    }
    if let loop { return .deadlock(loop) }
    defer { WaitGraph.remove(waiter, waitingFor: self) }
    return .finished(state.wait { $0.outcome })
  }
}

extension InFlight {
  /// Blocks `thread` until this load of `feature` (registered as `binding`), which another request
  /// through `branch` owns, ends.
  ///
  /// - Returns: What the load hands its waiters: a `Box<F>` of the instance, or, for a unit's load,
  ///   the branch (the waiter reads the unit again).
  /// - Throws: The load's failure, with this request's site and path, or the cycle that waiting
  ///   would close.
  func outcome<F: Feature>(
    of feature: F.Type, waitingAs thread: LoadingThread, binding: Binding, in branch: Branch,
    at location: SourceLocation
  ) throws -> AnyObject {
    switch wait(as: thread) {
    case .finished(.success(let outcome)):
      return outcome
    case .finished(.failure(let error)):
      throw FeatureLoadingFailed.waitedFor(
        feature, binding: binding, failure: error, in: branch, path: thread.frames, at: location)
    case .deadlock(let ownerFrames):
      throw CircularDependency(ownerFrames + thread.frames, closingWith: feature, in: branch, at: location)
    }
  }
}

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
