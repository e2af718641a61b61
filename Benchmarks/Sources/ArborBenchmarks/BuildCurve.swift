import Arbor

/// `build`: building a root with 1,024 and with 4,096 registrations of distinct cacheable types.
/// Registering is linear when the ratio stays near 4; the baseline fills a dictionary from type to
/// factory, which is what a hand-written registry would do.
enum BuildCurve {
  static let sizes = [1_024, 4_096]

  static func run(_ settings: Settings) -> Curve {
    let features = numberedFeatures(typeNumbers(sizes.last!, bits: 12), tag: Bits.self)
    let root = FeaturesRoot { registry in
      for feature in features { registry.use(feature.loader()) }
    }
    for index in [0, 1, 1_023, 2_048, 4_095] {
      expect(try! features[index].value(in: root) == index, "build: feature \(index) of the root")
    }
    let builds = max(1, settings.count(450) / settings.samples)
    var runs: [(Int) -> Double] = []
    for size in sizes {
      let registered = Array(features.prefix(size))
      runs.append { _ in
        nanoseconds(per: builds) {
          for _ in 0..<builds {
            blackHole(FeaturesRoot { registry in for feature in registered { registry.use(feature.loader()) } })
          }
        } / 1_000
      }
      runs.append { _ in
        nanoseconds(per: builds) {
          for _ in 0..<builds {
            var table: [ObjectIdentifier: @Sendable () -> any Sendable] = [:]
            for feature in registered { table[ObjectIdentifier(feature)] = feature.factory() }
            blackHole(table)
          }
        } / 1_000
      }
    }
    let samples = timedSamples(samples: settings.samples, runs)
    let figures = samples.map(median)
    var curve = Curve(id: "build")
    for (index, size) in sizes.enumerated() {
      curve.points.append(
        Curve.Point(
          label: "\(grouped(size)) registrations (µs per root)", unit: "µs", arbor: figures[2 * index],
          baseline: figures[2 * index + 1]))
    }
    // Each sample builds both sizes in turn: the ratio is taken within a turn, then the median of
    // the turns, so that load that comes and goes between turns does not move it.
    curve.ratios.append(
      Curve.Ratio(
        title: "Arbor, 4,096 ÷ 1,024 registrations (median of per-sample ratios)",
        value: medianOfRatios(samples[2], samples[0]), target: .atMost(5)))
    curve.ratios.append(
      Curve.Ratio(
        title: "hand-written, 4,096 ÷ 1,024 registrations (median of per-sample ratios)",
        value: medianOfRatios(samples[3], samples[1]), target: nil, isBaseline: true))
    #if DEBUG
      curve.notes.append("debug build: these figures are not release figures")
    #endif
    return curve
  }
}
