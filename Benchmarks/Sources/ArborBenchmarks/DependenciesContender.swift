import Dependencies

/// swift-dependencies: values read with `@Dependency`, scopes made with `withDependencies`.
///
/// It has no disposables and no per-scope caches: a disposable is a factory dependency that is
/// called (and resolves what it needs with `@Dependency` inside); a request's five instances are
/// built when its scope is entered, and read back with `@Dependency`.
struct DependenciesContender: Contender {
  func cachedAtRoot() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        @Dependency(\.service) var service
        blackHole(service)
      }
    }
  }

  func cachedThreeDeep() -> (Int) -> Void {
    { n in
      withDependencies {
        $0.level = 1
      } operation: {
        withDependencies {
          $0.level = 2
        } operation: {
          withDependencies {
            $0.level = 3
          } operation: {
            for _ in 0..<n {
              @Dependency(\.service) var service
              blackHole(service)
            }
          }
        }
      }
    }
  }

  func disposableWithCached() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        @Dependency(\.makeConsumer) var makeConsumer
        blackHole(makeConsumer())
      }
    }
  }

  func chainOfTen() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        @Dependency(\.makeLink0) var makeLink
        blackHole(makeLink())
      }
    }
  }

  func request() -> (Int) -> Void {
    { n in
      for id in 0..<n {
        Self.withRequest(id) {
          @Dependency(\.r0) var r0
          @Dependency(\.r1) var r1
          @Dependency(\.r2) var r2
          @Dependency(\.r3) var r3
          @Dependency(\.r4) var r4
          blackHole(r0)
          blackHole(r1)
          blackHole(r2)
          blackHole(r3)
          blackHole(r4)
        }
      }
    }
  }

  static func withRequest<R>(_ id: Int, operation: () -> R) -> R {
    withDependencies { values in
      let request = RequestID(value: id)
      values.requestID = request
      values.r0 = .make(request)
      values.r1 = .make(request)
      values.r2 = .make(request)
      values.r3 = .make(request)
      values.r4 = .make(request)
    } operation: {
      operation()
    }
  }

  func cachedConcurrently(capturing: Bool) -> @Sendable (Int) -> Void {
    if capturing {
      return { n in
        for _ in 0..<n {
          @Dependency(\.service) var service
          blackHole(service)
        }
      }
    }
    return { n in
      for _ in 0..<n {
        @Dependency(\.ticker) var ticker
        blackHole(ticker)
      }
    }
  }

  /// Its container is a `withDependencies` scope that sets every feature's value: it has no
  /// registrations to build, and its live values are made once per process, so only setting them
  /// builds the graph anew (see `DependenciesGraph`).
  func layeredGraph() -> (Int) -> Void {
    { n in
      for _ in 0..<n {
        DependenciesGraph.withGraph {
          var sink = DiscardingSink()
          DependenciesGraph.resolveAll(&sink)
        }
      }
    }
  }

  /// A kept scope is a `DependencyValues` with the request's values set: what `withDependencies`
  /// would install for the request.
  func keepRequests(_ count: Int) -> Any {
    (0..<count).map { id in
      var values = DependencyValues._current
      let request = RequestID(value: id)
      values.requestID = request
      values.r0 = .make(request)
      values.r1 = .make(request)
      values.r2 = .make(request)
      values.r3 = .make(request)
      values.r4 = .make(request)
      return values
    }
  }

  func verify() {
    let services = making {
      @Dependency(\.service) var service
      @Dependency(\.service) var again
      expect(service.value() == 42 && again.value() == 42, "swift-dependencies: Service")
    }
    expect(services <= 1, "swift-dependencies: Service made \(services) times")
    @Dependency(\.makeConsumer) var makeConsumer
    expect(makeConsumer().value() == 43, "swift-dependencies: Consumer")
    @Dependency(\.makeLink0) var makeLink
    expect(makeLink().value() == 9, "swift-dependencies: chain")
    Self.withRequest(7) {
      @Dependency(\.r4) var r4
      expect(r4.value() == 7, "swift-dependencies: request")
    }
    LayeredGraph.verify("swift-dependencies") { first, again in
      DependenciesGraph.withGraph {
        DependenciesGraph.resolveAll(&first)
        DependenciesGraph.resolveAll(&again)
      }
    }
  }
}

private enum ServiceKey: DependencyKey {
  static let liveValue = Service.make()
}

private enum TickerKey: DependencyKey {
  static let liveValue = Ticker.make()
}

private enum LevelKey: DependencyKey {
  static let liveValue = 0
}

private enum ConsumerFactoryKey: DependencyKey {
  static let liveValue: @Sendable () -> Consumer = {
    @Dependency(\.service) var service
    return .make(service)
  }
}

/// A factory per link: each resolves the next link's factory when called.
private enum Link0Key: DependencyKey {
  static let liveValue: @Sendable () -> Link0 = {
    @Dependency(\.makeLink1) var next; return .make(next())
  }
}
private enum Link1Key: DependencyKey {
  static let liveValue: @Sendable () -> Link1 = {
    @Dependency(\.makeLink2) var next; return .make(next())
  }
}
private enum Link2Key: DependencyKey {
  static let liveValue: @Sendable () -> Link2 = {
    @Dependency(\.makeLink3) var next; return .make(next())
  }
}
private enum Link3Key: DependencyKey {
  static let liveValue: @Sendable () -> Link3 = {
    @Dependency(\.makeLink4) var next; return .make(next())
  }
}
private enum Link4Key: DependencyKey {
  static let liveValue: @Sendable () -> Link4 = {
    @Dependency(\.makeLink5) var next; return .make(next())
  }
}
private enum Link5Key: DependencyKey {
  static let liveValue: @Sendable () -> Link5 = {
    @Dependency(\.makeLink6) var next; return .make(next())
  }
}
private enum Link6Key: DependencyKey {
  static let liveValue: @Sendable () -> Link6 = {
    @Dependency(\.makeLink7) var next; return .make(next())
  }
}
private enum Link7Key: DependencyKey {
  static let liveValue: @Sendable () -> Link7 = {
    @Dependency(\.makeLink8) var next; return .make(next())
  }
}
private enum Link8Key: DependencyKey {
  static let liveValue: @Sendable () -> Link8 = {
    @Dependency(\.makeLink9) var next; return .make(next())
  }
}
private enum Link9Key: DependencyKey {
  static let liveValue: @Sendable () -> Link9 = {
    @Dependency(\.service) var service; return .last(service)
  }
}

/// The request's values; the live values are never read, as every request sets its own.
private enum RequestIDKey: DependencyKey {
  static let liveValue = RequestID(value: -1)
}
private enum Request0Key: DependencyKey {
  static let liveValue = Request0.make(RequestID(value: -1))
}
private enum Request1Key: DependencyKey {
  static let liveValue = Request1.make(RequestID(value: -1))
}
private enum Request2Key: DependencyKey {
  static let liveValue = Request2.make(RequestID(value: -1))
}
private enum Request3Key: DependencyKey {
  static let liveValue = Request3.make(RequestID(value: -1))
}
private enum Request4Key: DependencyKey {
  static let liveValue = Request4.make(RequestID(value: -1))
}

extension DependencyValues {
  fileprivate var service: Service {
    get { self[ServiceKey.self] }
    set { self[ServiceKey.self] = newValue }
  }
  fileprivate var ticker: Ticker {
    get { self[TickerKey.self] }
    set { self[TickerKey.self] = newValue }
  }
  fileprivate var level: Int {
    get { self[LevelKey.self] }
    set { self[LevelKey.self] = newValue }
  }
  fileprivate var makeConsumer: @Sendable () -> Consumer {
    get { self[ConsumerFactoryKey.self] }
    set { self[ConsumerFactoryKey.self] = newValue }
  }
  fileprivate var makeLink0: @Sendable () -> Link0 { self[Link0Key.self] }
  fileprivate var makeLink1: @Sendable () -> Link1 { self[Link1Key.self] }
  fileprivate var makeLink2: @Sendable () -> Link2 { self[Link2Key.self] }
  fileprivate var makeLink3: @Sendable () -> Link3 { self[Link3Key.self] }
  fileprivate var makeLink4: @Sendable () -> Link4 { self[Link4Key.self] }
  fileprivate var makeLink5: @Sendable () -> Link5 { self[Link5Key.self] }
  fileprivate var makeLink6: @Sendable () -> Link6 { self[Link6Key.self] }
  fileprivate var makeLink7: @Sendable () -> Link7 { self[Link7Key.self] }
  fileprivate var makeLink8: @Sendable () -> Link8 { self[Link8Key.self] }
  fileprivate var makeLink9: @Sendable () -> Link9 { self[Link9Key.self] }
  fileprivate var requestID: RequestID {
    get { self[RequestIDKey.self] }
    set { self[RequestIDKey.self] = newValue }
  }
  fileprivate var r0: Request0 {
    get { self[Request0Key.self] }
    set { self[Request0Key.self] = newValue }
  }
  fileprivate var r1: Request1 {
    get { self[Request1Key.self] }
    set { self[Request1Key.self] = newValue }
  }
  fileprivate var r2: Request2 {
    get { self[Request2Key.self] }
    set { self[Request2Key.self] = newValue }
  }
  fileprivate var r3: Request3 {
    get { self[Request3Key.self] }
    set { self[Request3Key.self] = newValue }
  }
  fileprivate var r4: Request4 {
    get { self[Request4Key.self] }
    set { self[Request4Key.self] = newValue }
  }
}
