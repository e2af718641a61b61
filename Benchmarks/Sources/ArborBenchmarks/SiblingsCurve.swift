import Arbor

/// `siblings`: 250 and 1,000 scopes defined side by side in one registry: what building that root
/// costs, and branching the last-defined one. Both should grow at most linearly with the number of
/// scopes (4× the scopes, at most 5× the cost), however the definitions are found.
enum SiblingsCurve {
  static let sizes = [250, 1_000]

  static func run(_ settings: Settings) -> Curve {
    let scopes = siblingScopes(typeNumbers(sizes.last!, bits: 10))
    let roots = sizes.map { size in
      let defined = scopes.prefix(size)
      return FeaturesRoot { registry in
        for scope in defined { scope.define(in: &registry) }
      }
    }
    for (root, size) in zip(roots, sizes) {
      for scope in [scopes[0], scopes[size - 1]] {
        expect((try? root.branch(sibling: scope)) != nil, "siblings: \(scope) branches from the root of \(size)")
      }
    }
    let builds = max(1, settings.count(450) / settings.samples)
    let branches = max(1, settings.count(1_000_000) / settings.samples)
    var runs: [(Int) -> Double] = []
    for (root, size) in zip(roots, sizes) {
      let defined = Array(scopes.prefix(size))
      runs.append { _ in
        nanoseconds(per: builds) {
          for _ in 0..<builds {
            blackHole(FeaturesRoot { registry in for scope in defined { scope.define(in: &registry) } })
          }
        } / 1_000
      }
      let last = defined[size - 1]
      runs.append { _ in nanoseconds(per: branches) { last.branch(from: root, count: branches) } }
    }
    let figures = medians(samples: settings.samples, runs)
    var curve = Curve(id: "siblings")
    for (index, size) in sizes.enumerated() {
      curve.points.append(
        Curve.Point(label: "\(grouped(size)) scopes: build the root (µs)", unit: "µs", arbor: figures[2 * index]))
      curve.points.append(
        Curve.Point(
          label: "\(grouped(size)) scopes: branch the last defined, drop it (ns)", unit: "ns",
          arbor: figures[2 * index + 1]))
    }
    curve.ratios.append(
      Curve.Ratio(title: "build, 1,000 ÷ 250 scopes", value: figures[2] / figures[0], target: .atMost(5)))
    curve.ratios.append(
      Curve.Ratio(title: "branch, 1,000 ÷ 250 scopes", value: figures[3] / figures[1], target: .atMost(5)))
    return curve
  }
}

extension Features {
  /// A branch of a scope known only by its existential metatype.
  func branch(sibling scope: any SiblingScope.Type) throws -> Features {
    func open<S: SiblingScope>(_ scope: S.Type) throws -> Features { try branch(scope) }
    return try open(scope)
  }
}
