import Arbor
import Synchronization

/// The multiton of the `multiton` curve: one cached instance per `Int` context.
struct Keyed: CacheableFeature {
  typealias Context = Int

  var value: @Sendable () -> Int

  static var placeholder: Keyed { Keyed(value: unimplemented("Keyed.value", placeholder: 0)) }

  static func make(_ key: Int) -> Keyed {
    made.pointee += 1
    return Keyed(value: { key })
  }
}

/// The hand-written multiton: a dictionary behind a lock, in a class so that closures can share it.
final class KeyedTable: Sendable {
  let instances = Mutex<[Int: Keyed]>([:])
}

/// `multiton`: reading an already loaded cacheable selected by an `Int` context, against reading a
/// context-free cacheable of the same branch (case a's read). Target: at most 3×. The baselines are a
/// `Mutex<[Int: Keyed]>` lookup and case a's `Mutex`-lazy `Service`.
enum MultitonCurve {
  static func run(_ settings: Settings) -> Curve {
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { _ in Service.make() })
      registry.use(.cacheable { (key: Int, _) in Keyed.make(key) })
    }
    let table = KeyedTable()
    let lazy = LazyService()
    let loads = making {
      expect(try! root.instance(of: Keyed.self, context: 7).value() == 7, "multiton: Keyed(7)")
      expect(try! root.instance(of: Keyed.self, context: 8).value() == 8, "multiton: Keyed(8)")
      expect(try! root.instance(of: Keyed.self, context: 7).value() == 7, "multiton: Keyed(7) again")
      expect(try! root.instance(of: Service.self).value() == 42, "multiton: Service")
      table.instances.withLock { $0 = [7: Keyed.make(7), 8: Keyed.make(8)] }
      expect(table.instances.withLock { $0[7]! }.value() == 7, "multiton: hand-written Keyed(7)")
      expect(lazy.instance.value() == 42, "multiton: hand-written Service")
    }
    expect(loads == 6, "multiton: \(loads) instances made, not one per context and library")

    let reads = max(1, settings.count(2_000_000) / settings.samples)
    let figures = medians(
      samples: settings.samples,
      [
        { _ in
          nanoseconds(per: reads) { for _ in 0..<reads { blackHole(try! root.instance(of: Keyed.self, context: 7)) } }
        },
        { _ in nanoseconds(per: reads) { for _ in 0..<reads { blackHole(table.instances.withLock { $0[7]! }) } } },
        { _ in nanoseconds(per: reads) { for _ in 0..<reads { blackHole(try! root.instance(of: Service.self)) } } },
        { _ in nanoseconds(per: reads) { for _ in 0..<reads { blackHole(lazy.instance) } } },
      ])
    var curve = Curve(id: "multiton")
    curve.points.append(
      Curve.Point(
        label: "cached, context 7 (ns; hand: `Mutex<[Int: Keyed]>`)", unit: "ns", arbor: figures[0],
        baseline: figures[1]))
    curve.points.append(
      Curve.Point(
        label: "cached, no context: case a (ns; hand: `Mutex`-lazy)", unit: "ns", arbor: figures[2],
        baseline: figures[3]))
    curve.ratios.append(
      Curve.Ratio(title: "with context ÷ without, Arbor", value: figures[0] / figures[2], target: .atMost(3)))
    return curve
  }
}
