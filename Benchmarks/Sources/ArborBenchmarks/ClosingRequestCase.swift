import Arbor

// Case d′: a request whose five cacheables hold resources to close. Arbor branches it with
// `withBranch`, resolves the five, and closes it (five teardowns, newest first); the hand-written
// request is a class with five lazy vars and a `close()` that closes the ones it made, newest first.
// Arbor and hand-written only: the peers have no teardown to compare.

/// How many resources were closed: plain memory, as `made` is, read by the verification only.
nonisolated(unsafe) let closed = UnsafeMutablePointer<Int>.allocate(capacity: 1)

/// A resource of a request, closed at its end; `Tag` makes five distinct feature types.
struct Resource<Tag>: CacheableFeature {
  var id: Int
  var close: @Sendable () async -> Void

  static var placeholder: Resource { Resource(id: -1, close: {}) }

  static func open(_ request: RequestID) -> Resource {
    made.pointee += 1
    return Resource(id: request.value, close: { closed.pointee += 1 })
  }
}

enum R0 {}
enum R1 {}
enum R2 {}
enum R3 {}
enum R4 {}

enum ClosingRequestScope: FeaturesScope { typealias Context = RequestID }

enum ClosingRequestCase {
  static let title = "d′. request: withBranch, 5 cacheables with teardowns, close"

  static let root: Features = FeaturesRoot { registry in
    registry.defineScope(ClosingRequestScope.self) { registry in
      registry.use(resource(R0.self))
      registry.use(resource(R1.self))
      registry.use(resource(R2.self))
      registry.use(resource(R3.self))
      registry.use(resource(R4.self))
    }
  }

  static func resource<Tag>(_ tag: Tag.Type) -> FeatureLoader {
    .cacheable { features in
      Resource<Tag>.open(try features.context(for: ClosingRequestScope.self))
    } teardown: { resource in
      await resource.close()
    }
  }

  /// Resolves the five, synchronously, as case d does.
  @inline(__always)
  static func resolveFive(_ request: Features) {
    blackHole(try! request.instance(of: Resource<R0>.self))
    blackHole(try! request.instance(of: Resource<R1>.self))
    blackHole(try! request.instance(of: Resource<R2>.self))
    blackHole(try! request.instance(of: Resource<R3>.self))
    blackHole(try! request.instance(of: Resource<R4>.self))
  }

  static func arbor(_ n: Int) async {
    let root = root
    for id in 0..<n {
      try! await root.withBranch(ClosingRequestScope.self, context: RequestID(value: id)) { request in
        resolveFive(request)
      }
    }
  }

  static func handWritten(_ n: Int) async {
    for id in 0..<n {
      let request = HandClosingRequest(RequestID(value: id))
      blackHole(request.r0)
      blackHole(request.r1)
      blackHole(request.r2)
      blackHole(request.r3)
      blackHole(request.r4)
      await request.close()
    }
  }

  /// Checks that each library opens and closes five resources a request.
  static func verify() async {
    let before = (made.pointee, closed.pointee)
    await arbor(2)
    expect(made.pointee - before.0 == 10 && closed.pointee - before.1 == 10, "Arbor: d′ closes five resources")
    await handWritten(2)
    expect(made.pointee - before.0 == 20 && closed.pointee - before.1 == 20, "hand: d′ closes five resources")
  }

  /// The row of d′, for the libraries among hand-written and Arbor that run.
  static func row(_ settings: Settings, libraries: [Library]) async -> Row {
    await verify()
    let runs: [(Library, (Int) async -> Void)] = libraries.compactMap { library in
      switch library {
      case .handWritten: (library, handWritten)
      case .arbor: (library, arbor)
      default: nil
      }
    }
    let total = settings.count(100_000)
    let perSample = max(1, total / settings.samples)
    for (_, run) in runs { await run(perSample) }
    var samples: [Library: [Double]] = [:]
    for _ in 0..<settings.samples {
      for (library, run) in runs {
        let start = now()
        await run(perSample)
        samples[library, default: []].append(Double(now() - start) / Double(perSample))
      }
    }
    return Row(title: title, unit: "ns", values: samples.mapValues(median))
  }
}

/// The hand-written request of d′: five lazily opened resources, closed newest first.
final class HandClosingRequest {
  let id: RequestID
  private var opened: [@Sendable () async -> Void] = []
  lazy var r0 = opening(Resource<R0>.open(id))
  lazy var r1 = opening(Resource<R1>.open(id))
  lazy var r2 = opening(Resource<R2>.open(id))
  lazy var r3 = opening(Resource<R3>.open(id))
  lazy var r4 = opening(Resource<R4>.open(id))

  init(_ id: RequestID) {
    self.id = id
  }

  private func opening<Tag>(_ resource: Resource<Tag>) -> Resource<Tag> {
    opened.append(resource.close)
    return resource
  }

  func close() async {
    for close in opened.reversed() { await close() }
    opened = []
  }
}
