import Arbor

/// `async-cached`: `try await features.instance()` of an already cached cacheable, against the
/// synchronous `try features.instance()` (case a), both timed in one async function. Target: at most
/// 1.5×.
enum AsyncCachedCurve {
  static func run(_ settings: Settings) -> Curve {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Service.make() })
    }
    let reads = max(1, settings.count(10_000_000) / settings.samples)
    let samples = settings.samples
    let figures = runAsync { await measure(root, reads: reads, samples: samples) }
    var curve = Curve(id: "async-cached")
    curve.points.append(
      Curve.Point(label: "`try await features.instance()`, cached (ns)", unit: "ns", arbor: figures.async))
    curve.points.append(
      Curve.Point(label: "`try features.instance()`, cached, in the same task (ns)", unit: "ns", arbor: figures.sync))
    curve.ratios.append(Curve.Ratio(title: "await ÷ sync", value: figures.async / figures.sync, target: .atMost(1.5)))
    return curve
  }

  /// The synchronous read: a function of its own, since in an async function `instance()` picks
  /// the async overload.
  @inline(__always)
  static func read(_ features: Features) -> Service {
    try! features.instance(of: Service.self)
  }

  static func measure(_ root: Features, reads: Int, samples: Int) async -> (async: Double, sync: Double) {
    let asyncService: Service = try! await root.instance(of: Service.self)
    expect(asyncService.value() == 42 && read(root).value() == 42, "async-cached: Service")
    let before = made.pointee
    _ = try! await root.instance(of: Service.self)
    expect(made.pointee == before, "async-cached: Service loaded again")
    var asyncTimes: [Double] = []
    var syncTimes: [Double] = []
    for sample in 0...samples {  // sample 0 is the warm-up
      var start = now()
      for _ in 0..<reads { blackHole(try! await root.instance(of: Service.self)) }
      let asyncTime = Double(now() - start) / Double(reads)
      start = now()
      for _ in 0..<reads { blackHole(read(root)) }
      let syncTime = Double(now() - start) / Double(reads)
      if sample > 0 {
        asyncTimes.append(asyncTime)
        syncTimes.append(syncTime)
      }
    }
    return (median(asyncTimes), median(syncTimes))
  }
}
