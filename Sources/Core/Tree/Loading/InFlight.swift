/// A synchronous load in progress that other requests wait for: its owner thread, and its outcome
/// once the owner finishes.
final class InFlight: WaitGraph.Node, @unchecked Sendable {
  // Sendable: `owner` is immutable; `outcome` is a lock.
  let owner: LoadingThread
  /// Written once by the owner; waiters block on it until then.
  private let outcome = Lock<Result<AnyObject, any Error>?>.makeWaitable(nil)

  init(owner: LoadingThread) {
    self.owner = owner
  }

  var isFinished: Bool { outcome.withLock { $0 != nil } }

  /// A load waits for its owner thread, which may be waiting for another load.
  var waitsImplicitlyFor: (any WaitGraph.Node)? { owner }

  func finish(_ outcome: Result<AnyObject, any Error>) {
    self.outcome.withLockWakingWaiters { $0 = outcome }
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
    return .finished(outcome.wait { $0 })
  }
}
