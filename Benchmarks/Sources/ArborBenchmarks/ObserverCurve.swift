import Arbor

/// `observer`: case d (a request branch, five cacheables loaded, dropped) in a tree without an
/// observer and in one whose observer does nothing, so that the figure is what observing costs
/// Arbor itself: a load event is made and handed over for every load.
enum ObserverCurve {
  /// An observer that keeps nothing.
  final class Discarding: FeaturesObserver {
    func loaded(_ load: LoadEvent) { blackHole(load.duration) }
  }

  static func run(_ settings: Settings) -> Curve {
    let plain = tree(observer: nil)
    let observed = tree(observer: Discarding())
    let requests = max(1, settings.count(200_000) / settings.samples)
    let figures = medians(
      samples: settings.samples,
      [plain, observed].map { root in
        { _ in nanoseconds(per: requests) { for id in 0..<requests { ArborContender.request(root, id) } } }
      })
    var curve = Curve(id: "observer")
    curve.points.append(Curve.Point(label: "case d, no observer (ns per request)", unit: "ns", arbor: figures[0]))
    curve.points.append(
      Curve.Point(label: "case d, an observer that keeps nothing (ns per request)", unit: "ns", arbor: figures[1]))
    curve.ratios.append(Curve.Ratio(title: "observed ÷ not observed", value: figures[1] / figures[0], target: nil))
    return curve
  }

  /// Case d's tree, observed by `observer`.
  private static func tree(observer: (any FeaturesObserver)?) -> Features {
    FeaturesRoot(observer: observer) { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(.cacheable { features in Request0.make(try features.context(for: RequestScope.self)) })
        registry.use(.cacheable { features in Request1.make(try features.context(for: RequestScope.self)) })
        registry.use(.cacheable { features in Request2.make(try features.context(for: RequestScope.self)) })
        registry.use(.cacheable { features in Request3.make(try features.context(for: RequestScope.self)) })
        registry.use(.cacheable { features in Request4.make(try features.context(for: RequestScope.self)) })
      }
    }
  }
}
