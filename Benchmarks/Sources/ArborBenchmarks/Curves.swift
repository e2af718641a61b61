import CProcessFacts
import Foundation

// Cost curves: how Arbor's cost grows with the size of what it works on (a chain's depth, a
// registry's size, the number of scopes or types), and what a few paths cost next to the path they
// should match. Arbor only, with a hand-written baseline where one makes sense. Each curve checks its
// wiring before timing, as the library cases do, and reports its points and the ratio that matters.

/// One measured curve: its points and the ratios its targets are about.
struct Curve {
  /// One point: Arbor's median, and the hand-written baseline's where there is one.
  struct Point {
    var label: String
    var unit: String
    var arbor: Double?
    var baseline: Double? = nil
  }

  /// A ratio of two medians of the curve, and the target it must meet.
  struct Ratio {
    var title: String
    var value: Double
    var target: Target?
    /// A ratio of the hand-written baseline's own points, shown with the baselines only.
    var isBaseline = false
  }

  var id: String
  var points: [Point] = []
  var ratios: [Ratio] = []
  /// Facts measured on the side (stack bytes per link, a thread's stack size), printed under the tables.
  var notes: [String] = []
}

/// The curves, in the order they run; `--cases` selects them by these names.
let curveCases: [(id: String, run: @Sendable (Settings) -> Curve)] = [
  ("recursion", RecursionCurve.run),
  ("build", BuildCurve.run),
  ("siblings", SiblingsCurve.run),
  ("loaders", LoadersCurve.run),
  ("unused", UnusedCurve.run),
  ("multiton", MultitonCurve.run),
  ("async-cached", AsyncCachedCurve.run),
  ("observer", ObserverCurve.run),
  ("properties", PropertiesCurve.run),
  ("renewal", RenewalCurve.run),
  ("middleware", MiddlewareCurve.run),
  ("vapor-middleware", VaporMiddlewareCurve.run),
]

/// Runs the selected curves and prints their tables. Curves measure Arbor, so `--libraries` without
/// `arbor` skips them; baselines are left out unless `hand` is selected too.
func runCurves(_ settings: Settings) {
  guard settings.includes(Library.arbor) else { return }
  var curves: [Curve] = []
  for (id, run) in curveCases where settings.includes(id) {
    progress("\(id): curve")
    curves.append(run(settings))
  }
  guard !curves.isEmpty else { return }
  let baselines = settings.includes(Library.handWritten)
  var table = "\n| curve | point | Arbor | hand-written | Arbor ÷ hand-written |\n|---|---|---:|---:|---:|\n"
  for curve in curves {
    for point in curve.points {
      let baseline = baselines ? point.baseline : nil
      let ratio = point.arbor.flatMap { arbor in baseline.map { formatRatio(arbor / $0) } } ?? ""
      table +=
        "| \(curve.id) | \(point.label) | \(point.arbor.map { format($0, unit: point.unit) } ?? "n/a") | "
        + "\(baseline.map { format($0, unit: point.unit) } ?? "") | \(ratio) |\n"
    }
  }
  table += "\n| curve | ratio | value | target | met |\n|---|---|---:|---|---|\n"
  for curve in curves {
    for ratio in curve.ratios where baselines || !ratio.isBaseline {
      table +=
        "| \(curve.id) | \(ratio.title) | \(formatRatio(ratio.value)) | \(ratio.target?.text ?? "") | "
        + "\(ratio.target.map { $0.isMet(by: ratio.value) ? "yes" : "no" } ?? "") |\n"
    }
  }
  let notes = curves.flatMap { curve in curve.notes.map { "- \(curve.id): \($0)" } }
  if !notes.isEmpty { table += "\n" + notes.joined(separator: "\n") + "\n" }
  print(table, terminator: "")
}

/// Medians of `runs`, each timed `samples` times after one untimed warm-up.
///
/// A run receives the sample's index (0 is the warm-up) and returns its own figure (nanoseconds per
/// operation, say). The samples of the runs are taken in turn, as ``measure(total:settings:_:)``
/// does, so that a change in the machine's load affects them alike.
func medians(samples: Int, _ runs: [(Int) -> Double]) -> [Double] {
  timedSamples(samples: samples, runs).map(median)
}

/// Medians of nanoseconds per operation of `runs`, each of which performs the operation `operations`
/// times in the calling task, timed `samples` times after one untimed warm-up and in turn, as
/// ``medians(samples:_:)`` times its runs.
func asyncMedians(samples: Int, operations: Int, _ runs: [(Int) async -> Void]) async -> [Double] {
  var times = Array(repeating: [Double](), count: runs.count)
  for sample in 0...samples {  // sample 0 is the warm-up
    for (index, run) in runs.enumerated() {
      let start = now()
      await run(operations)
      if sample > 0 { times[index].append(Double(now() - start) / Double(operations)) }
    }
  }
  return times.map(median)
}

/// Every sample of `runs`, taken as ``medians(samples:_:)`` takes them: `[run][sample]`.
func timedSamples(samples: Int, _ runs: [(Int) -> Double]) -> [[Double]] {
  for run in runs { _ = run(0) }
  var figures = Array(repeating: [Double](), count: runs.count)
  for sample in 1...samples {
    for (index, run) in runs.enumerated() { figures[index].append(run(sample)) }
  }
  return figures
}

/// The median of the ratios `numerator[i] / denominator[i]` of samples taken in the same turn:
/// the two figures of a turn are milliseconds apart, so a change in the machine's load between
/// turns moves both, and cancels out of their ratio.
func medianOfRatios(_ numerator: [Double], _ denominator: [Double]) -> Double {
  median(zip(numerator, denominator).map { $0 / $1 })
}

/// Nanoseconds per operation of `body`, which performs `operations` operations.
func nanoseconds(per operations: Int, _ body: () -> Void) -> Double {
  let start = now()
  body()
  return Double(now() - start) / Double(operations)
}

/// The work of a thread started by ``onThread(stackSize:_:)``.
private final class ThreadJob {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and returns its result.
///
/// Deep chains of loads need more stack than the main thread's 8 MiB, and the curves must not crash
/// while they measure how much a link takes.
func onThread<Result>(stackSize: Int, _ body: @escaping () -> Result) -> Result {
  var result: Result?
  let job = Unmanaged.passRetained(ThreadJob { result = body() }).toOpaque()
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  defer { pthread_attr_destroy(&attributes) }
  pthread_attr_setstacksize(&attributes, stackSize)
  #if canImport(Darwin)
    var thread: pthread_t?
  #else
    var thread = pthread_t()
  #endif
  let created = pthread_create(
    &thread, &attributes,
    { job in
      #if canImport(Darwin)
        Unmanaged<ThreadJob>.fromOpaque(job).takeRetainedValue().body()
      #else
        Unmanaged<ThreadJob>.fromOpaque(job!).takeRetainedValue().body()
      #endif
      return nil
    }, job)
  precondition(created == 0, "could not start a thread with a \(stackSize)-byte stack")
  #if canImport(Darwin)
    pthread_join(thread!, nil)
  #else
    pthread_join(thread, nil)
  #endif
  return result!
}

/// The size of the calling thread's stack in bytes, as the thread library reports it.
func currentStackSize() -> Int? {
  let size = arbor_stack_size()
  return size == 0 ? nil : size
}

/// The address of a local variable of the caller's frame: the stack depth at the call, near enough.
@inline(never)
func stackAddress() -> UInt {
  var marker = 0
  return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}

/// Where ``runAsync(_:)`` receives its task's result.
private final class AsyncResult<Result: Sendable>: @unchecked Sendable {
  // Written by the task before it signals, read after the wait: the semaphore orders them.
  var result: Result?
}

/// Runs `body` in a task and blocks the calling (non-async) thread until it returns.
func runAsync<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
  let box = AsyncResult<Result>()
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    box.result = await body()
    done.signal()
  }
  done.wait()
  return box.result!
}

/// "1,024": counts in labels read better with separators.
func grouped(_ count: Int) -> String {
  let digits = String(count)
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0, (digits.count - index) % 3 == 0 { text += "," }
    text.append(digit)
  }
  return text
}
