import Foundation
import Synchronization

/// Takes a value so the optimiser cannot prove it unused and delete the work that made it.
///
/// Not optimised and not inlined: the value must exist, in a register or on the stack, when it is
/// called, whatever the caller's optimiser knows.
@_optimize(none) @inline(never)
func blackHole<T>(_ value: borrowing T) {}

/// How long the cases run, and which of them.
struct Settings {
  /// Multiplies every case's iteration count: 1 for the counts, 0.001 for a smoke run.
  var scale = 1.0
  /// Timed samples per case and library; the median is reported.
  var samples = 9
  /// Case identifiers to run (`a`, `a2`, `b`, `c`, `d`, `d′`, `e`, `f`, `g`, and the curves' names); empty
  /// runs all.
  var cases: Set<String> = []
  /// Libraries to run; empty runs all.
  var libraries: Set<Library> = []
  /// The chain depths of the `recursion` curve (`--depths`); fewer and shallower ones let callgrind
  /// count a link's instructions without running the 10,000-deep chain.
  var depths = [10, 100, 1_000, 10_000]

  func includes(_ id: String) -> Bool { cases.isEmpty || cases.contains(id) }
  func includes(_ library: Library) -> Bool { libraries.isEmpty || libraries.contains(library) }

  /// `iterations` scaled, never below one per sample.
  func count(_ iterations: Int) -> Int {
    max(samples, Int((Double(iterations) * scale).rounded()))
  }
}

/// The libraries compared, in table order.
enum Library: String, CaseIterable, Hashable {
  case handWritten = "hand"
  case arbor
  case swinject
  case dependencies = "swift-dependencies"

  var title: String {
    switch self {
    case .handWritten: "hand-written"
    case .arbor: "Arbor"
    case .swinject: "Swinject 2.10.0"
    case .dependencies: "swift-dependencies 1.17.1"
    }
  }
}

/// Nanoseconds since an arbitrary start, from the monotonic clock.
@inline(__always)
func now() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The median of `values`.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Median nanoseconds per operation of each of `runs`, each of which performs the operation `n`
/// times.
///
/// `total` operations are split over the samples; one untimed sample of the same size warms up
/// caches, lazily built state and the branch predictor first. The samples of the runs are taken in
/// turn, so that a change in the machine's load affects them alike and their ratios stay fair.
func measure<Key: Hashable>(total: Int, settings: Settings, _ runs: [(Key, (Int) -> Void)]) -> [Key: Double] {
  let perSample = max(1, total / settings.samples)
  for (_, run) in runs { run(perSample) }
  var samples: [Key: [Double]] = [:]
  for _ in 0..<settings.samples {
    for (key, run) in runs {
      let start = now()
      run(perSample)
      samples[key, default: []].append(Double(now() - start) / Double(perSample))
    }
  }
  return samples.mapValues(median)
}

/// Median nanoseconds per operation of `threads` threads each running `run(n)` at once: wall time
/// over the total operations, so a lower figure is a higher total throughput.
func measureThreads(
  _ threads: Int, total: Int, settings: Settings, _ run: @escaping @Sendable (Int) -> Void
) -> Double {
  let perThread = max(1, total / settings.samples / threads)
  var samples: [Double] = []
  for sample in 0...settings.samples {
    let gate = StartGate()
    let done = DispatchGroup()
    for _ in 0..<threads {
      done.enter()
      // Threads are made before the clock starts and spin at the gate, so the sample times only the
      // work.
      Thread.detachNewThread {
        gate.ready.add(1, ordering: .releasing)
        while !gate.open.load(ordering: .acquiring) {}
        run(perThread)
        done.leave()
      }
    }
    while gate.ready.load(ordering: .acquiring) < threads {}
    let start = now()
    gate.open.store(true, ordering: .releasing)
    done.wait()
    let elapsed = Double(now() - start) / Double(perThread * threads)
    if sample > 0 { samples.append(elapsed) }  // sample 0 is the warm-up
  }
  return median(samples)
}

/// Where the threads of one sample wait to start together.
final class StartGate: Sendable {
  let ready = Atomic<Int>(0)
  let open = Atomic<Bool>(false)
}
