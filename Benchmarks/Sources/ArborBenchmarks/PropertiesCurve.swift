import Arbor
import Synchronization

/// The property of the `properties` curve: a trivial value, as a timeout is.
enum Timeout: FeaturesProperty {
  static var defaultValue: Duration { .seconds(30) }
}

/// A property whose value's copy retains, as case a's `Service` does: a string too long to be stored
/// inline.
enum Region: FeaturesProperty {
  static var defaultValue: String { "en-GB, Europe/London" }
}

/// The hand-written property: a value behind a lock, in a class so that closures can share it.
final class LockedValue<Value: Sendable>: Sendable {
  let value: Mutex<Value>

  init(_ value: Value) {
    self.value = Mutex(value)
  }
}

/// `properties`: reading a property, against resolving a cached instance from the same branch (case
/// a's read, and a2's three scopes deep) and a hand-written `Mutex`-guarded value. Target: a read
/// costs no more than the cached resolve. Also a set followed by a read, which takes the slow paths
/// (a lock, a new snapshot), for scale.
enum PropertiesCurve {
  static func run(_ settings: Settings) -> Curve {
    let root = FeaturesRoot { registry in
      registry.set(Timeout.self, to: .seconds(10))
      registry.set(Region.self, to: "fr-FR, Europe/Paris!")
      registry.use(.cacheable { _ in Service.make() })
      registry.defineScope(Level1Scope.self) { registry in
        registry.defineScope(Level2Scope.self) { registry in
          registry.defineScope(Level3Scope.self) { _ in }
        }
      }
    }
    let deep = try! root.branch(Level1Scope.self).branch(Level2Scope.self).branch(Level3Scope.self)
    let timeout = LockedValue(Duration.seconds(10))
    let region = LockedValue("fr-FR, Europe/Paris!")
    let lazy = LazyService()
    let loads = making {
      expect(root[Timeout.self] == .seconds(10) && deep[Timeout.self] == .seconds(10), "properties: Timeout")
      expect(root[Region.self] == "fr-FR, Europe/Paris!", "properties: Region")
      expect(try! root.instance(of: Service.self).value() == 42, "properties: Service")
      expect(try! deep.instance(of: Service.self).value() == 42, "properties: Service, three deep")
      expect(lazy.instance.value() == 42, "properties: hand-written Service")
      let changing = FeaturesRoot { _ in }
      changing[Timeout.self] = .seconds(1)
      expect(changing[Timeout.self] == .seconds(1), "properties: a set is read")
    }
    expect(loads == 2, "properties: \(loads) services made, not one per library")

    let reads = max(1, settings.count(10_000_000) / settings.samples)
    let sets = max(1, settings.count(200_000) / settings.samples)
    let figures = medians(
      samples: settings.samples,
      [
        { _ in nanoseconds(per: reads) { readTimeout(root, reads) } },
        { _ in nanoseconds(per: reads) { readLocked(timeout, reads) } },
        { _ in nanoseconds(per: reads) { resolveService(root, reads) } },
        { _ in nanoseconds(per: reads) { for _ in 0..<reads { blackHole(lazy.instance) } } },
        { _ in nanoseconds(per: reads) { readTimeoutDeep(deep, reads, depth: 3) } },
        { _ in nanoseconds(per: reads) { resolveServiceDeep(deep, reads, depth: 3) } },
        { _ in nanoseconds(per: reads) { readRegion(root, reads) } },
        { _ in nanoseconds(per: reads) { readLocked(region, reads) } },
        { _ in
          // A root of its own per sample: a branch keeps every snapshot until it is released.
          let changing = FeaturesRoot { _ in }
          return nanoseconds(per: sets) { setThenRead(changing, sets) }
        },
      ])
    var curve = Curve(id: "properties")
    curve.points += [
      Curve.Point(
        label: "read `Duration` at the root (ns; hand: `Mutex<Duration>`)", unit: "ns", arbor: figures[0],
        baseline: figures[1]),
      Curve.Point(
        label: "cached resolve at the root: case a (ns; hand: `Mutex`-lazy)", unit: "ns", arbor: figures[2],
        baseline: figures[3]),
      Curve.Point(
        label: "read `Duration` three scopes deep (ns; hand: `Mutex<Duration>`)", unit: "ns", arbor: figures[4],
        baseline: figures[1]),
      Curve.Point(label: "cached resolve three scopes deep: case a2 (ns)", unit: "ns", arbor: figures[5]),
      Curve.Point(
        label: "read a 20-byte `String` at the root (ns; hand: `Mutex<String>`)", unit: "ns", arbor: figures[6],
        baseline: figures[7]),
      Curve.Point(label: "set, then read, at the root (ns)", unit: "ns", arbor: figures[8]),
    ]
    curve.ratios += [
      Curve.Ratio(title: "read ÷ cached resolve, at the root", value: figures[0] / figures[2], target: .atMost(1)),
      Curve.Ratio(title: "read ÷ cached resolve, three deep", value: figures[4] / figures[5], target: .atMost(1)),
      Curve.Ratio(
        title: "`String` read ÷ cached resolve, at the root", value: figures[6] / figures[2], target: .atMost(1)),
      Curve.Ratio(title: "read ÷ `Mutex<Duration>`", value: figures[0] / figures[1]),
      Curve.Ratio(title: "`String` read ÷ `Mutex<String>`", value: figures[6] / figures[7]),
    ]
    return curve
  }

  // Each loop is a function of its own, so that callgrind counts it by name (`callgrind_annotate
  // --inclusive=yes`). The deep ones take a `depth` (handed to `blackHole` once a call) so that the
  // optimiser does not merge them with the root's, whose loops are the same.

  @inline(never)
  static func readTimeout(_ features: Features, _ count: Int) {
    for _ in 0..<count { blackHole(features[Timeout.self]) }
  }

  @inline(never)
  static func readTimeoutDeep(_ features: Features, _ count: Int, depth: Int) {
    blackHole(depth)
    for _ in 0..<count { blackHole(features[Timeout.self]) }
  }

  @inline(never)
  static func readRegion(_ features: Features, _ count: Int) {
    for _ in 0..<count { blackHole(features[Region.self]) }
  }

  @inline(never)
  static func resolveService(_ features: Features, _ count: Int) {
    for _ in 0..<count { blackHole(try! features.instance(of: Service.self)) }
  }

  @inline(never)
  static func resolveServiceDeep(_ features: Features, _ count: Int, depth: Int) {
    blackHole(depth)
    for _ in 0..<count { blackHole(try! features.instance(of: Service.self)) }
  }

  @inline(never)
  static func readLocked<Value>(_ locked: LockedValue<Value>, _ count: Int) {
    for _ in 0..<count { blackHole(locked.value.withLock { $0 }) }
  }

  @inline(never)
  static func setThenRead(_ features: Features, _ count: Int) {
    for index in 0..<count {
      features[Timeout.self] = .milliseconds(index)
      blackHole(features[Timeout.self])
    }
  }
}
