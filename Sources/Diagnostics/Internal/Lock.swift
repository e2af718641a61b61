#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pthread mutex guarding a value, in one allocation.
///
/// Arbor uses it instead of `Synchronization.Mutex` because the thread sanitizer intercepts
/// pthread mutexes but cannot see the futex-based `Mutex` on Linux, whose critical sections it
/// reports as races; concurrency claims must be checkable with `--sanitize=thread`.
package final class Lock<State>: @unchecked Sendable {
  // Sendable: `state` is only touched inside `withLock`, under the mutex.
  // `mutex` first: a zero-sized `State` (Void) laid out before it would share its address, which
  // the thread sanitizer then reports as a race between reading `mutex` and accessing `state`.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var state: State

  private init(_ state: State) {
    self.state = state
    pthread_mutex_init(mutex, nil)
  }

  /// A lock guarding `state`.
  package static func make(_ state: State) -> Lock<State> {
    Lock(state)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the state.
  @inline(__always)
  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}
