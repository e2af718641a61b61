#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A load in progress that other requests wait for.
final class InFlight: @unchecked Sendable {
  let owner: LoadingThread
  // `outcome` is written once by the owner and read by waiters, both under `lock`.
  private var outcome: Result<AnyObject, any Error>?
  private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init(owner: LoadingThread) {
    self.owner = owner
    pthread_mutex_init(lock, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(lock)
    condition.deallocate()
    lock.deallocate()
  }

  /// Whether the owner has finished; a thread whose wait edge points at a finished load is no
  /// longer blocked by it, even before it removes the edge.
  var isFinished: Bool {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return outcome != nil
  }

  func finish(_ outcome: Result<AnyObject, any Error>) {
    pthread_mutex_lock(lock)
    self.outcome = outcome
    pthread_cond_broadcast(condition)
    pthread_mutex_unlock(lock)
  }

  enum Wait {
    case finished(Result<AnyObject, any Error>)
    /// Waiting would close a loop of threads waiting for each other: the frames of the threads in
    /// the loop, starting with the owner of this load.
    case deadlock([LoadStep])
  }

  /// Blocks until the owner finishes, unless waiting would deadlock.
  func wait(as waiter: LoadingThread) -> Wait {
    let loop = LoadingThread.waits.withLock { waits -> [LoadStep]? in
      var owners: [LoadingThread] = []
      var load: InFlight? = self
      while let current = load, !current.isFinished {
        // A loop: each owner on it waits for an unfinished load that can only finish after this
        // thread's, so none can return from its wait and pop its frames while they are read.
        if current.owner === waiter { return owners.flatMap(\.frames) }
        owners.append(current.owner)
        load = waits[ObjectIdentifier(current.owner)]
      }
      waits[ObjectIdentifier(waiter)] = self
      return nil
    }
    if let loop { return .deadlock(loop) }
    defer { LoadingThread.waits.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(waiter)) } }
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while true {
      if let outcome { return .finished(outcome) }
      pthread_cond_wait(condition, lock)
    }
  }
}
