import Dispatch
import Synchronization

/// A serial executor that counts the jobs it runs: work that left an actor on it and came back
/// adds one.
final class CountingExecutor: SerialExecutor {
  let jobs = Atomic<Int>(0)
  private let queue = DispatchQueue(label: "ArborTests.CountingExecutor")

  func enqueue(_ job: consuming ExecutorJob) {
    jobs.add(1, ordering: .relaxed)
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
  }
}
