import ArborDiagnostics
import ArborTestSupport
import Dispatch
import Foundation
import Synchronization

/// Runs `body` on `count` dedicated threads at once and waits for all of them.
///
/// Dedicated threads, not tasks: these tests block inside loaders on purpose, and the cooperative
/// pool may have fewer threads than the test needs running together.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  startThreads(count, body).wait()
}

/// ``onThreads(_:_:)`` from a task: suspends until the threads end rather than blocking a thread of
/// the cooperative pool, which what the threads wait for may need (a refresh, an async load, a
/// close), as other tests running meanwhile may.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  let group = startThreads(count, body)
  await withCheckedContinuation { ended in
    group.notify(queue: .global()) { ended.resume() }
  }
}

/// Starts `count` dedicated threads running `body`: the group they leave as they end.
private func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      body(index)
      group.leave()
    }
    thread.start()
  }
  return group
}

/// A flag one thread raises and another waits for, with a timeout so a broken build fails instead
/// of hanging.
final class Flag: Sendable {
  private let raised = Atomic<Bool>(false)

  func raise() { raised.store(true, ordering: .releasing) }

  var isRaised: Bool { raised.load(ordering: .acquiring) }

  /// Waits, blocking this thread, until raised; `false` after `seconds`.
  func wait(seconds: Double = 30) -> Bool {
    blockUntil(seconds: seconds) { isRaised }
  }

  /// Suspends (without blocking a thread of the cooperative pool) until raised; `false` after
  /// `seconds`.
  func suspendUntilRaised(seconds: Double = 60) async -> Bool {
    await eventually(seconds: seconds) { isRaised }
  }
}

/// Collects values from many threads.
final class Collected<Value: Sendable>: Sendable {
  private let values = Lock<[Value]>.make([])
  func append(_ value: Value) { values.withLock { $0.append(value) } }
  var all: [Value] { values.withLock { $0 } }
}

/// Whether the thread sanitizer's runtime is in the process: it tracks at most 65,536 frames a
/// thread, fewer than the deepest tests recurse.
let runsUnderThreadSanitizer: Bool =
  dlsym(nil, "__tsan_init") != nil || ProcessInfo.processInfo.environment["ARBOR_THREAD_SANITIZER"] != nil

/// Whether the address sanitizer instruments this process: its stack frames are larger too.
let runsUnderAddressSanitizer: Bool = dlsym(nil, "__asan_init") != nil
