import Dispatch
import Foundation

/// Waits, blocking this thread, until `condition` holds: what code running on a thread of its own
/// (a synchronous loader, say) waits for. `false` after `seconds`, so that a broken build fails
/// instead of hanging.
package func blockUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
  let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
  while !condition() {
    if DispatchTime.now().uptimeNanoseconds > deadline { return false }
    usleep(50)
  }
  return true
}

/// Suspends, without blocking a thread of the cooperative pool, until `condition` holds, for at
/// most `seconds`; whether it did.
package func eventually(seconds: Double = 60, _ condition: @Sendable () -> Bool) async -> Bool {
  // Counted in short sleeps, not read from the clock: while other tests hold the cooperative
  // pool's threads (tests that block on threads do, for tens of seconds under the thread
  // sanitizer), this wait does not run either, and that time must not count against it.
  for _ in 0..<Int(seconds * 1_000) {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return condition()
}

/// Suspends until `condition`, which may await (a request, say), holds, for at most `seconds`;
/// whether it did. A condition that throws counts as not holding yet.
package func eventually(seconds: Double = 60, asking condition: @Sendable () async throws -> Bool) async -> Bool {
  for _ in 0..<Int(seconds * 1_000) {
    if (try? await condition()) == true { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return (try? await condition()) == true
}
