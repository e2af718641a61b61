#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pthread mutex guarding a value, in one allocation, and optionally a condition variable that
/// lets a thread block until the value is ready: Arbor's only wrapper of pthread synchronisation.
///
/// Arbor uses it instead of `Synchronization.Mutex` because the thread sanitizer intercepts
/// pthread mutexes but cannot see the futex-based `Mutex` on Linux, whose critical sections it
/// reports as races; concurrency claims must be checkable with `--sanitize=thread`.
///
/// Every pthread call's result is checked: a failure means the lock's memory is corrupt, and the
/// process stops there rather than run a critical section unguarded.
package final class Lock<State>: @unchecked Sendable {
  // Sendable: `state` is only touched inside `withLock` or `wait(until:)`, under the mutex.
  // `mutex` first: a zero-sized `State` (Void) laid out before it would share its address, which
  // the thread sanitizer then reports as a race between reading `mutex` and accessing `state`.
  @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  /// Made only for a lock that threads wait on (``makeWaitable(_:)``).
  private let condition: UnsafeMutablePointer<pthread_cond_t>?
  /// Unchecked exclusivity: every access is under the mutex, which already makes it exclusive, so a
  /// runtime check (a thread-local access set, two calls a critical section) would add nothing.
  @usableFromInline @exclusivity(unchecked) var state: State

  private init(_ state: consuming State, waitable: Bool) {
    self.state = state
    check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
    condition = waitable ? .allocate(capacity: 1) : nil
    if let condition { check(pthread_cond_init(condition, nil), "pthread_cond_init") }
  }

  /// A lock guarding `state`.
  package static func make(_ state: consuming State) -> Lock<State> {
    Lock(state, waitable: false)
  }

  /// A lock guarding `state` that threads can wait on until it is ready: see ``wait(until:)`` and
  /// ``withLockWakingWaiters(_:)``.
  package static func makeWaitable(_ state: consuming State) -> Lock<State> {
    Lock(state, waitable: true)
  }

  deinit {
    if let condition {
      check(pthread_cond_destroy(condition), "pthread_cond_destroy")
      condition.deallocate()
    }
    check(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
    mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the state.
  ///
  /// Inlinable, so that the modules above specialise it: called generically across the module
  /// boundary, it costs several hundred instructions a call in metadata lookups.
  @inlinable @inline(__always)
  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
    defer { check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
    return try body(&state)
  }

  /// Runs `body` with exclusive access to the state, then wakes every thread in
  /// ``wait(until:)`` to look at it again. A waitable lock only.
  package func withLockWakingWaiters<R>(_ body: (inout State) throws -> R) rethrows -> R {
    try withLock { state in
      defer { check(pthread_cond_broadcast(condition.unsafelyUnwrapped), "pthread_cond_broadcast") }
      return try body(&state)
    }
  }

  /// Blocks until `ready` finds what it waits for in the state, and returns it. `ready` runs under
  /// the lock, first at once, then each time ``withLockWakingWaiters(_:)`` changed the state. A
  /// waitable lock only.
  package func wait<R>(until ready: (inout State) -> R?) -> R {
    check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
    defer { check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
    // A separate access to `state` each time: none stays open while the mutex is released.
    while true {
      if let result = ready(&state) { return result }
      check(pthread_cond_wait(condition.unsafelyUnwrapped, mutex), "pthread_cond_wait")
    }
  }
}

/// Stops the process when a pthread call fails: only corrupt memory makes these calls fail.
@inlinable @inline(__always)
func check(_ status: Int32, _ call: StaticString) {
  precondition(status == 0, "\(call) failed with error \(status)")
}
