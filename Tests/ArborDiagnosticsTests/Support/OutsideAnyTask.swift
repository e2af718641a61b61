import ArborDiagnostics
import Dispatch
import Foundation

/// Runs `body` on a thread of its own, outside any task, as synchronous code of an app's thread
/// runs, and waits for it: at most `seconds`, after which it throws ``ThreadDidNotFinish``.
func outsideAnyTask<R: Sendable>(seconds: Int = 30, _ body: @escaping @Sendable () throws -> R) throws -> R {
  let outcome = Lock<Result<R, any Error>?>.make(nil)
  let finished = DispatchSemaphore(value: 0)
  let thread = Thread {
    let result = Result { try body() }
    outcome.withLock { $0 = result }
    finished.signal()
  }
  thread.start()
  guard finished.wait(timeout: .now() + .seconds(seconds)) == .success, let result = outcome.withLock({ $0 }) else {
    throw ThreadDidNotFinish()
  }
  return try result.get()
}

/// The thread of ``outsideAnyTask(seconds:_:)`` did not finish in time.
struct ThreadDidNotFinish: Error {}
