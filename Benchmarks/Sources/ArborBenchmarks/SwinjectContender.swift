import Swinject

/// Swinject: a container with `.container` scope for cached instances and `.transient` for
/// disposables; child containers are its scopes.
struct SwinjectContender: Contender {
  let container: Container = {
    let container = Container()
    container.register(Service.self) { _ in Service.make() }.inObjectScope(.container)
    container.register(Ticker.self) { _ in Ticker.make() }.inObjectScope(.container)
    container.register(Consumer.self) { resolver in Consumer.make(resolver.resolve(Service.self)!) }
      .inObjectScope(.transient)
    container.register(Link0.self) { r in .make(r.resolve(Link1.self)!) }.inObjectScope(.transient)
    container.register(Link1.self) { r in .make(r.resolve(Link2.self)!) }.inObjectScope(.transient)
    container.register(Link2.self) { r in .make(r.resolve(Link3.self)!) }.inObjectScope(.transient)
    container.register(Link3.self) { r in .make(r.resolve(Link4.self)!) }.inObjectScope(.transient)
    container.register(Link4.self) { r in .make(r.resolve(Link5.self)!) }.inObjectScope(.transient)
    container.register(Link5.self) { r in .make(r.resolve(Link6.self)!) }.inObjectScope(.transient)
    container.register(Link6.self) { r in .make(r.resolve(Link7.self)!) }.inObjectScope(.transient)
    container.register(Link7.self) { r in .make(r.resolve(Link8.self)!) }.inObjectScope(.transient)
    container.register(Link8.self) { r in .make(r.resolve(Link9.self)!) }.inObjectScope(.transient)
    container.register(Link9.self) { r in .last(r.resolve(Service.self)!) }.inObjectScope(.transient)
    return container
  }()

  func cachedAtRoot() -> (Int) -> Void {
    let container = container
    return { n in
      for _ in 0..<n { blackHole(container.resolve(Service.self)!) }
    }
  }

  func cachedThreeDeep() -> (Int) -> Void {
    let deep = Container(parent: Container(parent: Container(parent: container)))
    return { n in
      for _ in 0..<n { blackHole(deep.resolve(Service.self)!) }
    }
  }

  func disposableWithCached() -> (Int) -> Void {
    let container = container
    return { n in
      for _ in 0..<n { blackHole(container.resolve(Consumer.self)!) }
    }
  }

  func chainOfTen() -> (Int) -> Void {
    let container = container
    return { n in
      for _ in 0..<n { blackHole(container.resolve(Link0.self)!) }
    }
  }

  /// A request scope: a child container with the request's registrations, cached in it.
  static func request(_ parent: Container, _ id: Int) -> Container {
    let request = Container(parent: parent)
    let context = RequestID(value: id)
    request.register(RequestID.self) { _ in context }
    request.register(Request0.self) { r in .make(r.resolve(RequestID.self)!) }.inObjectScope(.container)
    request.register(Request1.self) { r in .make(r.resolve(RequestID.self)!) }.inObjectScope(.container)
    request.register(Request2.self) { r in .make(r.resolve(RequestID.self)!) }.inObjectScope(.container)
    request.register(Request3.self) { r in .make(r.resolve(RequestID.self)!) }.inObjectScope(.container)
    request.register(Request4.self) { r in .make(r.resolve(RequestID.self)!) }.inObjectScope(.container)
    return request
  }

  func request() -> (Int) -> Void {
    let container = container
    return { n in
      for id in 0..<n {
        let request = Self.request(container, id)
        blackHole(request.resolve(Request0.self)!)
        blackHole(request.resolve(Request1.self)!)
        blackHole(request.resolve(Request2.self)!)
        blackHole(request.resolve(Request3.self)!)
        blackHole(request.resolve(Request4.self)!)
      }
    }
  }

  func cachedConcurrently(capturing: Bool) -> @Sendable (Int) -> Void {
    // Swinject's documented way to resolve from several threads: a synchronized resolver.
    let resolver = Unchecked(container.synchronize())
    if capturing {
      return { n in
        for _ in 0..<n { blackHole(resolver.value.resolve(Service.self)!) }
      }
    }
    return { n in
      for _ in 0..<n { blackHole(resolver.value.resolve(Ticker.self)!) }
    }
  }

  func layeredGraph() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        var sink = DiscardingSink()
        SwinjectGraph.resolveAll(SwinjectGraph.makeContainer(), &sink)
      }
    }
  }

  func keepRequests(_ count: Int) -> Any {
    (0..<count).map { id in
      let request = Self.request(container, id)
      _ = request.resolve(Request0.self)!
      _ = request.resolve(Request1.self)!
      _ = request.resolve(Request2.self)!
      _ = request.resolve(Request3.self)!
      _ = request.resolve(Request4.self)!
      return request
    }
  }

  func verify() {
    let deep = Container(parent: Container(parent: Container(parent: container)))
    let services = making {
      expect(container.resolve(Service.self)!.value() == 42, "Swinject: Service")
      expect(container.resolve(Service.self)!.value() == 42, "Swinject: Service again")
      expect(deep.resolve(Service.self)!.value() == 42, "Swinject: Service, three deep")
    }
    expect(services == 1, "Swinject: Service made \(services) times")
    expect(container.resolve(Consumer.self)!.value() == 43, "Swinject: Consumer")
    expect(container.resolve(Link0.self)!.value() == 9, "Swinject: chain")
    let requests = making {
      let request = Self.request(container, 7)
      expect(request.resolve(Request4.self)!.value() == 7, "Swinject: request")
      expect(request.resolve(Request4.self)!.value() == 7, "Swinject: request again")
    }
    expect(requests == 1, "Swinject: request feature made \(requests) times")
    LayeredGraph.verify("Swinject") { first, again in
      let container = SwinjectGraph.makeContainer()
      SwinjectGraph.resolveAll(container, &first)
      SwinjectGraph.resolveAll(container, &again)
    }
  }
}

/// A value shared with other threads although its type is not `Sendable`.
// Sendable: used only for Swinject's synchronized resolver, which serialises every call on its
// container's recursive lock, as Swinject documents for resolving from several threads.
struct Unchecked<Value>: @unchecked Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}
