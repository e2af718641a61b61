import Arbor

/// Arbor: one root registers everything; scopes for case a2 (three levels) and d/f (requests).
struct ArborContender: Contender {
  let root: Features = FeaturesRoot { registry in
    registry.use(.cacheable { _ in Service.make() })
    registry.use(.cacheable { _ in Ticker.make() })
    registry.use(.disposable { features in Consumer.make(try features.instance()) })
    registry.use(.disposable { features in Link0.make(try features.instance(of: Link1.self)) })
    registry.use(.disposable { features in Link1.make(try features.instance(of: Link2.self)) })
    registry.use(.disposable { features in Link2.make(try features.instance(of: Link3.self)) })
    registry.use(.disposable { features in Link3.make(try features.instance(of: Link4.self)) })
    registry.use(.disposable { features in Link4.make(try features.instance(of: Link5.self)) })
    registry.use(.disposable { features in Link5.make(try features.instance(of: Link6.self)) })
    registry.use(.disposable { features in Link6.make(try features.instance(of: Link7.self)) })
    registry.use(.disposable { features in Link7.make(try features.instance(of: Link8.self)) })
    registry.use(.disposable { features in Link8.make(try features.instance(of: Link9.self)) })
    registry.use(.disposable { features in Link9.last(try features.instance()) })
    registry.defineScope(Level1Scope.self) { registry in
      registry.defineScope(Level2Scope.self) { registry in
        registry.defineScope(Level3Scope.self) { _ in }
      }
    }
    registry.defineScope(RequestScope.self) { registry in
      registry.use(.cacheable { features in Request0.make(try features.context(for: RequestScope.self)) })
      registry.use(.cacheable { features in Request1.make(try features.context(for: RequestScope.self)) })
      registry.use(.cacheable { features in Request2.make(try features.context(for: RequestScope.self)) })
      registry.use(.cacheable { features in Request3.make(try features.context(for: RequestScope.self)) })
      registry.use(.cacheable { features in Request4.make(try features.context(for: RequestScope.self)) })
    }
  }

  func cachedAtRoot() -> (Int) -> Void {
    let root = root
    return { n in
      for _ in 0..<n { blackHole(try! root.instance(of: Service.self)) }
    }
  }

  func cachedThreeDeep() -> (Int) -> Void {
    let deep = try! root.branch(Level1Scope.self).branch(Level2Scope.self).branch(Level3Scope.self)
    return { n in
      for _ in 0..<n { blackHole(try! deep.instance(of: Service.self)) }
    }
  }

  func disposableWithCached() -> (Int) -> Void {
    let root = root
    return { n in
      for _ in 0..<n { blackHole(try! root.instance(of: Consumer.self)) }
    }
  }

  func chainOfTen() -> (Int) -> Void {
    let root = root
    return { n in
      for _ in 0..<n { blackHole(try! root.instance(of: Link0.self)) }
    }
  }

  func request() -> (Int) -> Void {
    let root = root
    return { n in
      for id in 0..<n { Self.request(root, id) }
    }
  }

  @inline(__always)
  static func request(_ root: Features, _ id: Int) {
    let request = try! root.branch(RequestScope.self, context: RequestID(value: id))
    blackHole(try! request.instance(of: Request0.self))
    blackHole(try! request.instance(of: Request1.self))
    blackHole(try! request.instance(of: Request2.self))
    blackHole(try! request.instance(of: Request3.self))
    blackHole(try! request.instance(of: Request4.self))
  }

  func cachedConcurrently(capturing: Bool) -> @Sendable (Int) -> Void {
    let root = root
    if capturing {
      return { n in
        for _ in 0..<n { blackHole(try! root.instance(of: Service.self)) }
      }
    }
    return { n in
      for _ in 0..<n { blackHole(try! root.instance(of: Ticker.self)) }
    }
  }

  func layeredGraph() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        var sink = DiscardingSink()
        ArborGraph.resolveAll(ArborGraph.makeRoot(), &sink)
      }
    }
  }

  func keepRequests(_ count: Int) -> Any {
    (0..<count).map { id in
      let request = try! root.branch(RequestScope.self, context: RequestID(value: id))
      _ = try! request.instance(of: Request0.self)
      _ = try! request.instance(of: Request1.self)
      _ = try! request.instance(of: Request2.self)
      _ = try! request.instance(of: Request3.self)
      _ = try! request.instance(of: Request4.self)
      return request
    }
  }

  func verify() {
    let deep = try! root.branch(Level1Scope.self).branch(Level2Scope.self).branch(Level3Scope.self)
    let services = making {
      expect(try! root.instance(of: Service.self).value() == 42, "Arbor: Service")
      expect(try! root.instance(of: Service.self).value() == 42, "Arbor: Service again")
      expect(try! deep.instance(of: Service.self).value() == 42, "Arbor: Service, three deep")
    }
    expect(services == 1, "Arbor: Service made \(services) times")
    expect(try! root.instance(of: Consumer.self).value() == 43, "Arbor: Consumer")
    expect(try! root.instance(of: Link0.self).value() == 9, "Arbor: chain")
    let requests = making {
      let request = try! root.branch(RequestScope.self, context: RequestID(value: 7))
      expect(try! request.instance(of: Request4.self).value() == 7, "Arbor: request")
      expect(try! request.instance(of: Request4.self).value() == 7, "Arbor: request again")
    }
    expect(requests == 1, "Arbor: request feature made \(requests) times")
    LayeredGraph.verify("Arbor") { first, again in
      let root = ArborGraph.makeRoot()
      ArborGraph.resolveAll(root, &first)
      ArborGraph.resolveAll(root, &again)
    }
  }
}
