import Synchronization

/// Hand-written wiring: the limit a container is measured against.
///
/// `let` properties and plain calls (b, c), an instance built lazily behind a `Mutex` (a, a2, e:
/// what a thread-safe lazily built singleton costs), and a class with five lazy vars (d, f).
struct HandWrittenContender: Contender {
  let wiring = HandWiring(service: .make())

  func cachedAtRoot() -> (Int) -> Void {
    let lazy = LazyService()
    return { n in
      for _ in 0..<n { blackHole(lazy.instance) }
    }
  }

  func cachedThreeDeep() -> (Int) -> Void {
    let root = HandScope(parent: nil, service: LazyService())
    let deep = HandScope(parent: HandScope(parent: HandScope(parent: root)))
    return { n in
      for _ in 0..<n { blackHole(deep.service.instance) }
    }
  }

  func disposableWithCached() -> (Int) -> Void {
    let wiring = wiring
    return { n in
      for _ in 0..<n { blackHole(wiring.consumer()) }
    }
  }

  func chainOfTen() -> (Int) -> Void {
    let wiring = wiring
    return { n in
      for _ in 0..<n { blackHole(wiring.link0()) }
    }
  }

  func request() -> (Int) -> Void {
    { n in
      for id in 0..<n {
        let request = HandRequest(RequestID(value: id))
        blackHole(request.r0)
        blackHole(request.r1)
        blackHole(request.r2)
        blackHole(request.r3)
        blackHole(request.r4)
      }
    }
  }

  func cachedConcurrently(capturing: Bool) -> @Sendable (Int) -> Void {
    if capturing {
      let lazy = LazyService()
      return { n in
        for _ in 0..<n { blackHole(lazy.instance) }
      }
    }
    let lazy = LazyTicker()
    return { n in
      for _ in 0..<n { blackHole(lazy.instance) }
    }
  }

  func layeredGraph() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        var sink = DiscardingSink()
        HandGraph().resolveAll(&sink)
      }
    }
  }

  func keepRequests(_ count: Int) -> Any {
    (0..<count).map { id in
      let request = HandRequest(RequestID(value: id))
      _ = (request.r0, request.r1, request.r2, request.r3, request.r4)
      return request
    }
  }

  func verify() {
    let services = making {
      let lazy = LazyService()
      expect(lazy.instance.value() == 42 && lazy.instance.value() == 42, "hand: Service")
    }
    expect(services == 1, "hand: Service made \(services) times")
    expect(wiring.consumer().value() == 43, "hand: Consumer")
    expect(wiring.link0().value() == 9, "hand: chain")
    let requests = making {
      let request = HandRequest(RequestID(value: 7))
      expect(request.r4.value() == 7 && request.r4.value() == 7, "hand: request")
    }
    expect(requests == 1, "hand: request feature made \(requests) times")
    LayeredGraph.verify("hand") { first, again in
      let graph = HandGraph()
      graph.resolveAll(&first)
      graph.resolveAll(&again)
    }
  }
}

/// A `Service` built on first use behind a lock.
final class LazyService: Sendable {
  private let storage = Mutex<Service?>(nil)

  var instance: Service {
    storage.withLock { service in
      if let service { return service }
      let made = Service.make()
      service = made
      return made
    }
  }
}

/// A `Ticker` built on first use behind a lock.
final class LazyTicker: Sendable {
  private let storage = Mutex<Ticker?>(nil)

  var instance: Ticker {
    storage.withLock { ticker in
      if let ticker { return ticker }
      let made = Ticker.make()
      ticker = made
      return made
    }
  }
}

/// A scope of hand-written wiring: it is handed its parent's lazily built `Service`.
final class HandScope: Sendable {
  let parent: HandScope?
  let service: LazyService

  init(parent: HandScope?, service: LazyService) {
    self.parent = parent
    self.service = service
  }

  convenience init(parent: HandScope) {
    self.init(parent: parent, service: parent.service)
  }
}

/// `let` properties and factory methods.
struct HandWiring: Sendable {
  let service: Service

  func consumer() -> Consumer { .make(service) }

  func link0() -> Link0 { .make(link1()) }
  func link1() -> Link1 { .make(link2()) }
  func link2() -> Link2 { .make(link3()) }
  func link3() -> Link3 { .make(link4()) }
  func link4() -> Link4 { .make(link5()) }
  func link5() -> Link5 { .make(link6()) }
  func link6() -> Link6 { .make(link7()) }
  func link7() -> Link7 { .make(link8()) }
  func link8() -> Link8 { .make(link9()) }
  func link9() -> Link9 { .last(service) }
}

/// A request's features: a class with five lazy vars.
final class HandRequest {
  let id: RequestID
  lazy var r0 = Request0.make(id)
  lazy var r1 = Request1.make(id)
  lazy var r2 = Request2.make(id)
  lazy var r3 = Request3.make(id)
  lazy var r4 = Request4.make(id)

  init(_ id: RequestID) {
    self.id = id
  }
}
