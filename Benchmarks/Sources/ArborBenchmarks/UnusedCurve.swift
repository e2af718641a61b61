import Arbor
import CProcessFacts

/// The one cacheable the `unused` curve's requests use.
struct Used: CacheableFeature {
  var value: @Sendable () -> Int

  static var placeholder: Used { Used(value: unimplemented("Used.value", placeholder: 0)) }

  static func make() -> Used {
    made.pointee += 1
    return Used(value: { 5 })
  }
}

/// A request scope registering `Used` only.
enum LeanScope: FeaturesScope {}
/// A request scope registering `Used` and 999 cacheables its requests never use.
enum CrowdedScope: FeaturesScope {}

/// `unused`: branch a scope, request its one used cacheable, drop the branch, when the scope
/// registers 1 and 1,000 cacheables. What a branch costs should not depend on what it never loads:
/// the target is at most 1.2× for both the time and the bytes a live branch holds.
enum UnusedCurve {
  static let crowd = 1_000
  /// Live branches whose heap is counted, for the bytes per branch.
  static let kept = 1_000

  static func run(_ settings: Settings) -> Curve {
    let unused = numberedFeatures(typeNumbers(crowd - 1, bits: 10), tag: Bits.self)
    let root = FeaturesRoot { registry in
      registry.defineScope(LeanScope.self) { registry in
        registry.use(.cacheable { _ in Used.make() })
      }
      registry.defineScope(CrowdedScope.self) { registry in
        registry.use(.cacheable { _ in Used.make() })
        for feature in unused { registry.use(feature.loader()) }
      }
    }
    let lean = { blackHole(try! root.branch(LeanScope.self).instance(of: Used.self)) }
    let crowded = { blackHole(try! root.branch(CrowdedScope.self).instance(of: Used.self)) }
    let loads = making {
      let branch = try! root.branch(CrowdedScope.self)
      expect(try! branch.instance(of: Used.self).value() == 5, "unused: Used")
      expect(try! branch.instance(of: Used.self).value() == 5, "unused: Used again")
      expect(try! unused[crowd - 2].value(in: branch) == crowd - 2, "unused: the last unused one")
      expect(try! root.branch(LeanScope.self).instance(of: Used.self).value() == 5, "unused: Used, lean")
    }
    expect(loads == 2, "unused: Used made \(loads) times, not once per branch")

    let requests = max(1, settings.count(1_000_000) / settings.samples)
    let figures = medians(
      samples: settings.samples,
      [
        { _ in nanoseconds(per: requests) { for _ in 0..<requests { lean() } } },
        { _ in nanoseconds(per: requests) { for _ in 0..<requests { crowded() } } },
      ])
    let bytes = [bytesPerBranch(root, LeanScope.self), bytesPerBranch(root, CrowdedScope.self)]
    var curve = Curve(id: "unused")
    for (index, registered) in [1, crowd].enumerated() {
      curve.points.append(
        Curve.Point(
          label: "\(grouped(registered)) registered, 1 used: branch, request, drop (ns)", unit: "ns",
          arbor: figures[index]))
      curve.points.append(
        Curve.Point(
          label: "\(grouped(registered)) registered, 1 used: heap bytes per live branch", unit: "bytes",
          arbor: bytes[index]))
    }
    curve.ratios.append(
      Curve.Ratio(title: "time, 1,000 ÷ 1 registered", value: figures[1] / figures[0], target: .atMost(1.2)))
    if let lean = bytes[0], let crowded = bytes[1] {
      curve.ratios.append(
        Curve.Ratio(title: "bytes, 1,000 ÷ 1 registered", value: crowded / lean, target: .atMost(1.2)))
    }
    return curve
  }

  /// The heap one live branch of `scope` holds with `Used` loaded: counted over ``kept`` branches.
  static func bytesPerBranch<Scope: FeaturesScope>(_ root: Features, _ scope: Scope.Type) -> Double?
  where Scope.Context == Void {
    var branches: [Features] = []
    branches.reserveCapacity(kept)
    let before = arbor_allocated_bytes()
    guard before > 0 else { return nil }
    for _ in 0..<kept {
      let branch = try! root.branch(scope)
      blackHole(try! branch.instance(of: Used.self))
      branches.append(branch)
    }
    let after = arbor_allocated_bytes()
    withExtendedLifetime(branches) {}
    return Double(Int(after) - Int(before)) / Double(kept)
  }
}
