import Arbor

/// `loaders`: making the first `FeatureLoader` of each of 1,000 and of 5,000 feature types the
/// process has never made a loader of. What a type costs the first time (its name, its loader's
/// generic metadata, conformance lookups) is paid once per process, so every sample of every point
/// uses types of its own: `Numbered<Tag, N>` with a tag per point and sample. The types' own
/// metadata is made before the clock starts; only making the loaders is timed. The same loaders made
/// again for the same types show what is paid only the first time.
enum LoadersCurve {
  static let sizes = [1_000, 5_000]

  static func run(_ settings: Settings) -> Curve {
    let numbers = typeNumbers(sizes.last!, bits: 13)  // one width for both points: equally long names
    let tags = sizes.count * (settings.samples + 1)
    let tagBits = Int.bitWidth - (tags - 1).leadingZeroBitCount
    func features(size: Int, sample: Int) -> [any NumberedFeature.Type] {
      let index = sample * sizes.count + sizes.firstIndex(of: size)!
      func tagged<Tag: TypeNumber>(_ tag: Tag.Type) -> [any NumberedFeature.Type] {
        numberedFeatures(Array(numbers.prefix(size)), tag: tag)
      }
      return tagged(tagType(index, bits: tagBits))
    }
    // Verification uses types of its own too, tagged with one bit where the samples' tags have at
    // least two, so that no sample's types are made before the sample.
    let checked = numberedFeatures(Array(numbers.prefix(10)), tag: Bit0<Bits>.self)
    let root = FeaturesRoot { registry in for feature in checked { registry.use(feature.loader()) } }
    for (index, feature) in checked.enumerated() {
      expect(try! feature.value(in: root) == index, "loaders: feature \(index)")
    }
    var again: [Int: [Double]] = [:]
    var runs: [(Int) -> Double] = []
    for size in sizes {
      runs.append { sample in
        let types = features(size: size, sample: sample)
        let first = nanoseconds(per: size) { for type in types { blackHole(type.loader()) } }
        again[size, default: []].append(nanoseconds(per: size) { for type in types { blackHole(type.loader()) } })
        return first
      }
    }
    let figures = medians(samples: settings.samples, runs)
    let agains = sizes.map { median(Array(again[$0]!.dropFirst())) }  // the first is the warm-up's
    var curve = Curve(id: "loaders")
    for (index, size) in sizes.enumerated() {
      curve.points.append(
        Curve.Point(
          label: "\(grouped(size)) new types: first loader (ns per loader)", unit: "ns", arbor: figures[index]))
      curve.points.append(
        Curve.Point(label: "\(grouped(size)) types: a loader again (ns per loader)", unit: "ns", arbor: agains[index]))
    }
    curve.ratios.append(
      Curve.Ratio(
        title: "first loaders, 5,000 types ÷ 1,000 types (total time)", value: figures[1] * 5 / figures[0],
        target: .atMost(5)))
    return curve
  }
}
