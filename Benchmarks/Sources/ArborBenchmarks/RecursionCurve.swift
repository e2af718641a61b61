import Arbor

/// One link of the `recursion` curve: its loader requests the next link, with context n - 1, down to 0.
struct Countdown: DisposableFeature {
  typealias Context = Int

  var value: @Sendable () -> Int

  static var placeholder: Countdown { Countdown(value: unimplemented("Countdown.value", placeholder: 0)) }

  static func last() -> Countdown { Countdown(value: { 0 }) }

  /// A link whose value is one more than the next one's, so the top of an n-deep chain gives n.
  static func after(_ next: Countdown) -> Countdown { Countdown(value: { next.value() + 1 }) }
}

/// `recursion`: the cost per link of a disposable that requests itself n deep, against a plain
/// recursive function that builds the same value. A constant cost per link means the ratio of the
/// deepest to the shallowest per-link cost stays near 1; cycle detection that walks the whole path
/// makes it grow with depth.
enum RecursionCurve {
  /// Enough for the deepest chain with room to spare, whatever a link takes (measured in `notes`).
  static let stackSize = 512 << 20

  static let root = FeaturesRoot { registry in
    registry.use(
      .disposable { (n: Int, features) in
        n == 0 ? Countdown.last() : Countdown.after(try features.instance(of: Countdown.self, context: n - 1))
      })
  }

  @inline(never)
  static func handWritten(_ n: Int) -> Countdown {
    n == 0 ? Countdown.last() : Countdown.after(handWritten(n - 1))
  }

  static func run(_ settings: Settings) -> Curve {
    onThread(stackSize: stackSize) { measure(settings) }
  }

  private static func measure(_ settings: Settings) -> Curve {
    let root = root
    let depths = settings.depths
    // Checking each depth also times one chain of it, which sizes the samples below.
    var single: [Int: Double] = [:]
    for depth in depths {
      var top: Countdown?
      single[depth] = nanoseconds(per: depth) { top = try! root.instance(of: Countdown.self, context: depth) }
      expect(top?.value() == depth, "recursion: Arbor, \(depth) deep")
      expect(handWritten(depth).value() == depth, "recursion: hand-written, \(depth) deep")
    }
    // The same number of links per sample at every depth, so every point takes about as long as its
    // per-link cost says, within a time budget: where a link's cost grows with the depth, the deep
    // points would otherwise take minutes. A depth whose one chain is over the budget reports the
    // chain timed while checking it, unsampled.
    let links = settings.count(2_000_000) / settings.samples
    let budget = 2e9 * settings.scale  // nanoseconds per sample and point
    var runs: [(Int) -> Double] = []
    var sampled: [Int] = []
    for depth in depths where single[depth]! * Double(depth) <= budget {
      let chains = max(1, min(links / depth, Int(budget / (single[depth]! * Double(depth)))))
      sampled.append(depth)
      runs.append { _ in
        nanoseconds(per: chains * depth) {
          for _ in 0..<chains { blackHole(try! root.instance(of: Countdown.self, context: depth)) }
        }
      }
    }
    for depth in depths {
      let chains = max(1, links / depth)
      runs.append { _ in
        nanoseconds(per: chains * depth) {
          for _ in 0..<chains { blackHole(handWritten(depth)) }
        }
      }
    }
    let timed = medians(samples: settings.samples, runs)
    var arbor = single
    for (index, depth) in sampled.enumerated() { arbor[depth] = timed[index] }
    let hand = Dictionary(uniqueKeysWithValues: zip(depths, timed.suffix(depths.count)))
    var curve = Curve(id: "recursion")
    for depth in depths {
      let unsampled = sampled.contains(depth) ? "" : ", one chain, unsampled"
      curve.points.append(
        Curve.Point(
          label: "\(grouped(depth)) deep (ns per link\(unsampled))", unit: "ns", arbor: arbor[depth],
          baseline: hand[depth]))
    }
    let figures = depths.flatMap { [arbor[$0]!, hand[$0]!] }
    let span = "\(grouped(depths.last!)) ÷ \(grouped(depths[0]))"
    let shallow = figures[0]
    let deep = figures[2 * (depths.count - 1)]
    curve.ratios.append(
      Curve.Ratio(title: "Arbor per link, \(span) deep", value: deep / shallow, target: .atMost(2)))
    curve.ratios.append(
      Curve.Ratio(
        title: "hand-written per link, \(span) deep",
        value: figures[2 * depths.count - 1] / figures[1], target: nil, isBaseline: true))
    curve.notes = StackDepth.notes()
    return curve
  }
}

/// How much stack a link of the `recursion` chain takes, and so how deep a chain can go on the
/// main thread and on the threads that run Swift tasks.
///
/// Measured, not guessed: a loader records the address of one of its locals at the top of a chain
/// and at its last link; their distance over the number of links is the stack one link takes. The
/// stack sizes are what the thread library reports for the main thread and for a task's thread.
enum StackDepth {
  static let links = 1_000

  /// Stack addresses the probing loader records: at the top link (n == links) and the last (n == 0).
  nonisolated(unsafe) static var top: UInt = 0
  nonisolated(unsafe) static var bottom: UInt = 0

  static let probingRoot = FeaturesRoot { registry in
    registry.use(
      .disposable { (n: Int, features) in
        if n == links { top = stackAddress() }
        if n == 0 {
          bottom = stackAddress()
          return Countdown.last()
        }
        return Countdown.after(try features.instance(of: Countdown.self, context: n - 1))
      })
  }

  @inline(never)
  static func handWritten(_ n: Int) -> Countdown {
    if n == links { top = stackAddress() }
    if n == 0 {
      bottom = stackAddress()
      return Countdown.last()
    }
    return Countdown.after(handWritten(n - 1))
  }

  /// Bytes of stack per link of `chain`, which makes a chain of ``links`` links.
  static func bytesPerLink(_ chain: () -> Countdown) -> Double {
    expect(chain().value() == links, "recursion: stack probe")
    // The stack grows down on every platform Arbor runs on.
    return Double(top - bottom) / Double(links)
  }

  /// Called on a thread with a big stack (the curve's).
  static func notes() -> [String] {
    let arbor = bytesPerLink { try! probingRoot.instance(of: Countdown.self, context: links) }
    let hand = bytesPerLink { handWritten(links) }
    let main = mainThreadStackSize
    let task = runAsync { currentStackSize() }
    #if DEBUG
      let buildKind = "debug"
    #else
      let buildKind = "release"
    #endif
    var notes = [
      String(
        format: "stack per link (%@ build, measured over %d links): Arbor %.0f bytes, hand-written %.0f bytes",
        buildKind, links, arbor, hand)
    ]
    for (name, size) in [("main thread", main), ("a Swift task's thread (cooperative pool)", task)] {
      guard let size else {
        notes.append("\(name): stack size unknown")
        continue
      }
      notes.append(
        "\(name): \(size / 1024) KiB of stack, so a chain of at most ~\(grouped(Int(Double(size) / arbor))) links "
          + "(hand-written ~\(grouped(Int(Double(size) / hand)))), less what the frames below the first request use")
    }
    return notes
  }
}

/// The main thread's stack size: `main.swift` reads it on the main thread before the curves run,
/// since the recursion curve runs on a thread of its own.
nonisolated(unsafe) var mainThreadStackSize: Int? = nil
