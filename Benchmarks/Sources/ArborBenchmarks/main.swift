// arbor-benchmarks: every case of the performance issue, for Arbor, its peers and hand-written
// wiring, in one run; prints a Markdown table of medians and ratios. Then Arbor's cost curves
// (Curves.swift), with a table of their points and one of their ratios.
//
//   swift run -c release arbor-benchmarks [--scale X] [--samples N] [--cases a,a2,d′,...,recursion,...]
//                                         [--libraries hand,arbor,swinject,swift-dependencies]
//
// ARBOR_BENCHMARK_SCALE sets the scale too (CI runs at 0.001, which only checks that it runs).
import Foundation

var settings = Settings()
if let scale = ProcessInfo.processInfo.environment["ARBOR_BENCHMARK_SCALE"].flatMap(Double.init) {
  settings.scale = scale
}
var memoryChild: (library: Library, count: Int)?
var arguments = CommandLine.arguments.dropFirst()[...]

func usage(_ message: String) -> Never {
  FileHandle.standardError.write(
    Data(
      """
      arbor-benchmarks: \(message)
      usage: arbor-benchmarks [--scale X] [--samples N] \
      [--cases a,a2,b,c,d,d′,e,f,g,\(curveCases.map(\.id).joined(separator: ","))] \
      [--libraries hand,arbor,swinject,swift-dependencies] [--depths 10,100,1000,10000]

      """.utf8))
  exit(2)
}

@MainActor func value(after option: String) -> String {
  guard let value = arguments.popFirst() else { usage("\(option) needs a value") }
  return value
}

func library(_ name: some StringProtocol) -> Library {
  guard let library = Library(rawValue: String(name)) else { usage("no library named \(name)") }
  return library
}

while let argument = arguments.popFirst() {
  switch argument {
  case "--scale":
    guard let scale = Double(value(after: argument)), scale > 0 else { usage("--scale takes a positive number") }
    settings.scale = scale
  case "--samples":
    guard let samples = Int(value(after: argument)), samples > 0 else { usage("--samples takes a count") }
    settings.samples = samples
  case "--cases":
    settings.cases = Set(value(after: argument).split(separator: ",").map(String.init))
  case "--depths":
    let depths = value(after: argument).split(separator: ",").compactMap { Int($0) }
    guard !depths.isEmpty, depths.allSatisfy({ $0 > 0 }) else { usage("--depths takes positive depths") }
    settings.depths = depths
  case "--libraries":
    settings.libraries = Set(value(after: argument).split(separator: ",").map(library))
  case "--memory-case":
    memoryChild = (library(value(after: argument)), memoryChild?.count ?? 100_000)
  case "--count":
    guard let count = Int(value(after: argument)) else { usage("--count takes a count") }
    memoryChild = memoryChild.map { ($0.library, count) }
  case "--help", "-h":
    usage("runs the benchmark")
  default:
    usage("unknown argument \(argument)")
  }
}

if let memoryChild {
  MemoryCase.runChild(memoryChild.library, count: memoryChild.count)
}

let libraries = Library.allCases.filter(settings.includes)
for library in libraries { library.contender.verify() }

func progress(_ text: String) {
  FileHandle.standardError.write(Data("\(text)\n".utf8))
}

/// One row of the table: the median of each library, and the target for Arbor ÷ hand-written.
struct Row {
  var title: String
  var unit: String
  var values: [Library: Double] = [:]
  var target: Target?
}

/// What Arbor must reach, as a ratio to hand-written (or, for e, its own two-thread speedup).
enum Target {
  case atMost(Double)
  case atLeast(Double)

  var text: String {
    switch self {
    case .atMost(let ratio): "≤ \(formatRatio(ratio))"
    case .atLeast(let ratio): "≥ \(formatRatio(ratio))"
    }
  }

  func isMet(by ratio: Double) -> Bool {
    switch self {
    case .atMost(let limit): ratio <= limit
    case .atLeast(let limit): ratio >= limit
    }
  }
}

var rows: [Row] = []
let timed: [(id: String, title: String, iterations: Int, target: Double, run: (any Contender) -> (Int) -> Void)] = [
  ("a", "a. cached, at the root", 10_000_000, 1.5, { $0.cachedAtRoot() }),
  ("a2", "a2. cached, from three scopes deep", 10_000_000, 1.5, { $0.cachedThreeDeep() }),
  ("b", "b. disposable using a cached", 1_000_000, 3, { $0.disposableWithCached() }),
  ("c", "c. chain of 10 disposables", 200_000, 3, { $0.chainOfTen() }),
  ("d", "d. request: branch, 5 cacheables, drop", 100_000, 4, { $0.request() }),
]
for (id, title, iterations, target, run) in timed where settings.includes(id) {
  progress("\(id): " + libraries.map(\.title).joined(separator: ", "))
  let runs = libraries.map { ($0, run($0.contender)) }
  rows.append(
    Row(
      title: title, unit: "ns", values: measure(total: settings.count(iterations), settings: settings, runs),
      target: .atMost(target)))
}

if settings.includes("d′") || settings.includes("d'") {
  progress("d′: " + libraries.filter { $0 == .handWritten || $0 == .arbor }.map(\.title).joined(separator: ", "))
  // Copies in the capture list: the task must not reach back to main.swift's globals while the
  // main thread waits for it.
  rows.append(runAsync { [settings, libraries] in await ClosingRequestCase.row(settings, libraries: libraries) })
}

if settings.includes("e") {
  for capturing in [true, false] {
    let name = capturing ? "e. `Service` (its closure captures state)" : "e′. `Ticker` (its closure captures nothing)"
    var one = Row(title: "\(name), 1 thread", unit: "ns")
    var two = Row(title: "\(name), 2 threads (wall ÷ all operations)", unit: "ns")
    var speedup = Row(
      title: "\(name): throughput, 2 threads ÷ 1 thread", unit: "×", target: capturing ? nil : .atLeast(1))
    for library in libraries {
      progress("\(capturing ? "e" : "e′"): \(library.title)")
      let run = library.contender.cachedConcurrently(capturing: capturing)
      let total = settings.count(4_000_000)
      one.values[library] = measureThreads(1, total: total, settings: settings, run)
      two.values[library] = measureThreads(2, total: total, settings: settings, run)
      speedup.values[library] = one.values[library]! / two.values[library]!
    }
    rows += [one, two, speedup]
  }
}

if settings.includes("f") {
  let count = settings.count(100_000)
  var row = Row(title: "f. \(count) live scopes × 5 cached: memory growth", unit: "MiB", target: .atMost(2))
  for library in libraries {
    progress("f: \(library.title)")
    if let bytes = MemoryCase.measure(library, count: count) { row.values[library] = Double(bytes) / 1_048_576 }
  }
  rows.append(row)
}

if settings.includes("g") {
  progress("g: " + libraries.map(\.title).joined(separator: ", "))
  let runs = libraries.map { ($0, $0.contender.layeredGraph()) }
  let nanoseconds = measure(total: settings.count(1_000), settings: settings, runs)
  rows.append(Row(title: LayeredGraph.title, unit: "µs", values: nanoseconds.mapValues { $0 / 1_000 }))
}

func formatRatio(_ ratio: Double) -> String {
  ratio >= 100
    ? String(format: "%.0f×", ratio) : ratio >= 10 ? String(format: "%.1f×", ratio) : String(format: "%.2f×", ratio)
}

func format(_ value: Double?, unit: String) -> String {
  guard let value else { return "n/a" }
  switch unit {
  case "×": return formatRatio(value)
  case "MiB": return String(format: "%.1f MiB", value)
  default: return value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
  }
}

let peers = libraries.filter { $0 != .arbor }
var table = "| case (median ns per operation) | " + libraries.map(\.title).joined(separator: " | ") + " | "
table += peers.map { "Arbor ÷ \($0 == .handWritten ? "hand-written" : $0.title)" }.joined(separator: " | ")
table += " | target | met |\n"
table += "|---|" + String(repeating: "---:|", count: libraries.count + peers.count) + "---|---|\n"
for row in rows {
  var cells = [row.title]
  cells += libraries.map { format(row.values[$0], unit: row.unit) }
  for peer in peers {
    if row.unit == "×" {
      cells.append("")
    } else if let arbor = row.values[.arbor], let other = row.values[peer] {
      cells.append(formatRatio(arbor / other))
    } else {
      cells.append("n/a")
    }
  }
  if let target = row.target {
    let ratio =
      row.unit == "×"
      ? row.values[.arbor]
      : row.values[.arbor].flatMap { arbor in
        row.values[.handWritten].map { arbor / $0 }
      }
    cells.append(target.text)
    cells.append(ratio.map { target.isMet(by: $0) ? "yes" : "no" } ?? "n/a")
  } else {
    cells += ["", ""]
  }
  table += "| " + cells.joined(separator: " | ") + " |\n"
}
if !rows.isEmpty {
  print(table, terminator: "")
  print(
    "\nscale \(settings.scale), \(settings.samples) samples per median; "
      + "ratios are Arbor's median ÷ the other's (lower is better for Arbor), "
      + "but in the throughput rows of e and e′, a library's own 2-thread ÷ 1-thread throughput (higher is better).")
}

mainThreadStackSize = currentStackSize()
runCurves(settings)
