import Arbor

// Case g: a random layered graph of features, as the public benchmark
// TizianoCoroneo/dependency-injection-performance-in-swift builds it. One operation builds a
// container that registers every feature, then resolves every feature once. The feature types and
// each library's wiring are generated (LayeredGraph+Generated.swift, by
// Scripts/generate-layered-graph.swift): an app has a concrete type and a registration per feature.

/// Case g's facts: the generated graph's size and the value each feature must have.
enum LayeredGraph {
  static let title = "g. layered graph, \(count) features in \(layerCount) layers: build, resolve each once (µs)"

  /// Checks one library's wiring of the graph.
  ///
  /// `resolveTwice` builds a container and resolves every feature into the first sink, then every
  /// feature again, from the same container, into the second: each feature must be made once, and
  /// have the value its dependencies give it.
  static func verify(_ library: String, _ resolveTwice: (inout GraphValues, inout GraphValues) -> Void) {
    var first = GraphValues()
    var again = GraphValues()
    let features = making { resolveTwice(&first, &again) }
    expect(features == count, "\(library): g made \(features) features, not \(count)")
    expect(first.values == expectedValues, "\(library): g resolved wrong values")
    expect(again.values == expectedValues, "\(library): g resolved wrong values the second time")
  }
}

/// A feature of the graph: its value is its number plus the values of the features it depends on,
/// computed when it is made.
protocol GraphFeature: CacheableFeature where Context == NoContext {
  var value: @Sendable () -> Int { get }
  init(value: @escaping @Sendable () -> Int)
  static var number: Int { get }
}

extension GraphFeature {
  static var placeholder: Self { Self(value: unimplemented("\(Self.self).value", placeholder: 0)) }

  static func counted(_ total: Int) -> Self {
    made.pointee += 1
    return Self(value: { total })
  }

  static func make() -> Self { counted(number) }

  static func make(_ a: some GraphFeature, _ b: some GraphFeature) -> Self {
    counted(number + a.value() + b.value())
  }

  static func make(_ a: some GraphFeature, _ b: some GraphFeature, _ c: some GraphFeature) -> Self {
    counted(number + a.value() + b.value() + c.value())
  }

  static func make(
    _ a: some GraphFeature, _ b: some GraphFeature, _ c: some GraphFeature, _ d: some GraphFeature
  ) -> Self {
    counted(number + a.value() + b.value() + c.value() + d.value())
  }
}

/// Where a library's generated `resolveAll` hands each resolved feature: generic, so that each
/// sink's `take` is specialised into the loop and the timed one costs only what `blackHole` does.
protocol GraphSink {
  mutating func take<F: GraphFeature>(_ feature: F)
}

/// The timed sink: keeps nothing, so that the optimiser keeps the resolution.
struct DiscardingSink: GraphSink {
  func take<F: GraphFeature>(_ feature: F) { blackHole(feature) }
}

/// The verification's sink: each feature's value, by number.
struct GraphValues: GraphSink {
  var values = [Int](repeating: -1, count: LayeredGraph.count)

  mutating func take<F: GraphFeature>(_ feature: F) { values[F.number] = feature.value() }
}
