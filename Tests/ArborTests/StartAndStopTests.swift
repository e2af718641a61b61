import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Synchronization
import Testing

/// `start()` loads eager features after what they request, independent ones at once, then runs the
/// before-serving work; a close tears down in reverse dependency order; time limits turn a hung
/// start or teardown into a diagnostic.
@Suite struct StartAndStopTests {
  // MARK: Random graphs

  /// Tags that make twelve distinct feature types of one generic feature.
  protocol Tag: SendableMetatype { static var index: Int { get } }
  enum T0: Tag { static var index: Int { 0 } }
  enum T1: Tag { static var index: Int { 1 } }
  enum T2: Tag { static var index: Int { 2 } }
  enum T3: Tag { static var index: Int { 3 } }
  enum T4: Tag { static var index: Int { 4 } }
  enum T5: Tag { static var index: Int { 5 } }
  enum T6: Tag { static var index: Int { 6 } }
  enum T7: Tag { static var index: Int { 7 } }
  enum T8: Tag { static var index: Int { 8 } }
  enum T9: Tag { static var index: Int { 9 } }
  enum T10: Tag { static var index: Int { 10 } }
  enum T11: Tag { static var index: Int { 11 } }
  static let tags: [any Tag.Type] = [
    T0.self, T1.self, T2.self, T3.self, T4.self, T5.self, T6.self, T7.self,
    T8.self, T9.self, T10.self, T11.self,
  ]

  struct Node<T: Tag>: CacheableFeature {
    var index: Int
    static var placeholder: Node { Node(index: -1) }
  }

  /// A seeded generator, so that a failing graph can be run again.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// A random graph: node `i` requests some nodes of lower index; some nodes are eager, some async.
  struct Graph: CustomStringConvertible {
    var requests: [[Int]]
    var eager: [Bool]
    var async: [Bool]

    init(seed: UInt64) {
      var random = SplitMix(state: seed)
      let count = Int.random(in: 3...StartAndStopTests.tags.count, using: &random)
      let async = (0..<count).map { _ in Bool.random(using: &random) }
      // A synchronous loader cannot request an async one: only an async loader requests both.
      requests = (0..<count).map { index in
        (0..<index).filter { Int.random(in: 0..<3, using: &random) == 0 && (async[index] || !async[$0]) }
      }
      eager = (0..<count).map { _ in Bool.random(using: &random) }
      eager[count - 1] = true
      self.async = async
    }

    var description: String { "requests \(requests), eager \(eager), async \(async)" }

    /// The nodes a start loads: the eager ones and everything they request.
    var loadedByStart: Set<Int> {
      var loaded: Set<Int> = []
      func visit(_ node: Int) {
        guard loaded.insert(node).inserted else { return }
        requests[node].forEach(visit)
      }
      eager.indices.filter { eager[$0] }.forEach(visit)
      return loaded
    }
  }

  /// What the loaders and teardowns of a graph did, in order.
  final class Log: Sendable {
    // Arbor's lock, which the thread sanitizer sees (it does not see `Mutex` on Linux).
    private let events = Lock<[String]>.make([])
    func append(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
    func position(of event: String) -> Int? { all.firstIndex(of: event) }
  }

  static func request(_ node: Int, from features: Features) throws {
    func open<T: Tag>(_ tag: T.Type) throws { _ = try features.instance(of: Node<T>.self) }
    try open(tags[node])
  }

  static func requestAsync(_ node: Int, from features: Features) async throws {
    func open<T: Tag>(_ tag: T.Type) async throws { _ = try await features.instance(of: Node<T>.self) }
    try await open(tags[node])
  }

  static func register<T: Tag>(
    _ tag: T.Type, in registry: inout FeaturesRegistry<RootFeaturesScope>, graph: Graph, log: Log
  ) {
    let node = T.index
    let requests = graph.requests[node]
    let loader: FeatureLoader
    if graph.async[node] {
      loader = .cacheable { (features: Features) async throws in
        log.append("start \(node)")
        for request in requests { try await Self.requestAsync(request, from: features) }
        log.append("loaded \(node)")
        return Node<T>(index: node)
      } teardown: { _ in
        await Task.yield()
        log.append("down \(node)")
      }
    } else {
      loader = .cacheable { (features: Features) in
        log.append("start \(node)")
        for request in requests { try Self.request(request, from: features) }
        log.append("loaded \(node)")
        return Node<T>(index: node)
      } teardown: { _ in
        log.append("down \(node)")
      }
    }
    registry.use(loader, eager: graph.eager[node])
  }

  static func root(_ graph: Graph, log: Log) -> Features {
    FeaturesRoot { registry in
      for tag in tags.prefix(graph.requests.count) { register(tag, in: &registry, graph: graph, log: log) }
    }
  }

  @Test(arguments: 0..<300)
  func startIsATopologicalOrderAndStopItsReverse(seed: Int) async throws {
    let graph = Graph(seed: UInt64(seed))
    let log = Log()
    let root = Self.root(graph, log: log)
    try await root.start()
    let loaded = graph.loadedByStart
    // Exactly what the eager features need, each once.
    #expect(Set(log.all.filter { $0.hasPrefix("loaded ") }.map { Int($0.dropFirst(7))! }) == loaded, "\(graph)")
    #expect(log.all.filter { $0.hasPrefix("start ") }.count == loaded.count, "\(graph)")
    for node in loaded {
      for request in graph.requests[node] {
        let needed = try #require(log.position(of: "loaded \(request)"))
        #expect(needed < log.position(of: "loaded \(node)")!, "\(node) loaded before \(request), \(graph)")
      }
    }
    // Stopped in reverse: an instance before everything it was built from; cancelled or not.
    let closing = Task { try await root.close() }
    if seed % 2 == 1 { closing.cancel() }
    try await closing.value
    for node in loaded {
      for request in graph.requests[node] {
        let down = try #require(log.position(of: "down \(node)"))
        #expect(down < log.position(of: "down \(request)")!, "\(request) torn down before \(node), \(graph)")
      }
    }
    #expect(log.all.filter { $0.hasPrefix("down ") }.count == loaded.count)
  }

  /// Two loaders that each wait for the other to have started.
  final class Meeting: Sendable {
    private let arrived = Atomic<Int>(0)
    /// Whether the other arrived too, within 10 s: one after the other, neither would.
    func meet() async -> Bool {
      arrived.add(1, ordering: .acquiringAndReleasing)
      return await eventually(seconds: 10) { arrived.load(ordering: .acquiring) == 2 }
    }
  }

  @Test func independentEagerFeaturesStartConcurrently() async throws {
    let meeting = Meeting()
    let root = FeaturesRoot { registry in
      registry.use(.cacheable { (_: Features) async in Node<T0>(index: await meeting.meet() ? 0 : -1) }, eager: true)
      registry.use(.cacheable { (_: Features) async in Node<T1>(index: await meeting.meet() ? 1 : -1) }, eager: true)
    }
    try await root.start()
    #expect(try await root.instance(of: Node<T0>.self).index == 0)
    #expect(try await root.instance(of: Node<T1>.self).index == 1)
    try await root.close()
  }

  // MARK: Failures, time limits, before serving

  struct Mailer: DisposableFeature {
    static var placeholder: Mailer { Mailer() }
  }

  struct Offline: Error, CustomStringConvertible {
    var description: String { "offline" }
  }

  @Test func aFailingStartTearsDownExactlyWhatStartedAndClosesTheBranch() async throws {
    let log = Log()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { _ in
          log.append("up cache")
          return Cache(name: "cache")
        } teardown: { _ in
          log.append("down cache")
        }, eager: true)
      registry.use(
        .cacheable(implementation: "live()") { (_: Features) async throws -> Pool in
          throw Offline()
        } teardown: { _ in
          log.append("down pool")
        }, eager: true)
      registry.beforeServing { _ in log.append("migrated") }
    }
    let error = await #expect(throws: FeaturesStartFailed.self) { try await root.start() }
    #expect(log.all == ["up cache", "down cache"])
    #expect(error?.diagnostic.message == "could not start Root: 1 of 3 steps failed")
    #expect(error?.diagnostic.causes.map(\.kind) == ["FeatureLoadingFailed"])
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Cache.self) }
    // A later start gets the same outcome, without running anything again.
    await #expect(throws: FeaturesStartFailed.self) { try await root.start() }
    #expect(log.all == ["up cache", "down cache"])
  }

  @Test func beforeServingRunsOnceAfterTheEagerLoadsInOrder() async throws {
    let log = Log()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (_: Features) async in
          log.append("pool")
          return Pool(name: "db")
        }, eager: true)
      registry.beforeServing { features in
        log.append("migrate \(try await features.instance(of: Pool.self).name)")
      }
      registry.beforeServing { _ in log.append("warm") }
    }
    // Concurrent starts: one runs, the others wait for it.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 { group.addTask { try await root.start() } }
      try await group.waitForAll()
    }
    try await root.start()
    #expect(log.all == ["pool", "migrate db", "warm"])
    try await root.close()
  }

  @Test func aSessionStartsItsOwnEagerFeatures() async throws {
    let log = Log()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (_: Features) in
          log.append("root pool")
          return Pool(name: "root")
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            log.append("session cache")
            return Cache(name: try features.instance(of: Pool.self).name)
          }, eager: true)
      }
    }
    try await root.start()  // the root registers nothing eager
    #expect(log.all.isEmpty)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try await session.start()
    #expect(log.all == ["session cache", "root pool"])  // the session's loader requests the root's
    try await root.close()
  }

  @Test func onlyCacheablesWithoutAContextCanBeEager() async throws {
    let root = FeaturesRoot { registry in
      registry.use(.disposable { _ in Mailer() }, eager: true, file: "App/Main.swift", line: 9)
    }
    let error = await #expect(throws: FeaturesStartFailed.self) { try await root.start() }
    let cause = try #require(error?.diagnostic.causes.first)
    #expect(cause.kind == "FeatureRegistrationInvalid")
    #expect(cause.message == "Mailer is registered eager, but it is not a cacheable without a context")
    #expect(cause.location?.description == "App/Main.swift:9")
  }

  /// An eager loader, or a before-serving work, that starts its own branch: that start is refused
  /// at once with ``LifecycleWorkReentered`` (it would wait for itself), and the start that runs it
  /// fails with it, closing the branch.
  @Test(arguments: ["eager loader", "before-serving work"])
  func anEagerLoaderOrWorkThatStartsItsOwnBranchFailsTheStart(starter: String) async throws {
    let log = Log()
    let refused = Collected<String>()
    let (loaderStartLine, workStartLine, workLine) = (#line + 6, #line + 18, #line + 15)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (features: Features) async throws in
          if starter == "eager loader" {
            do {
              try await features.start()
            } catch {
              refused.append(String(reflecting: error))
              throw error
            }
          }
          log.append("loaded")
          return Pool(name: "pool")
        }, eager: true)
      registry.beforeServing { features in
        if starter == "before-serving work" {
          do {
            try await features.start()
          } catch {
            refused.append(String(reflecting: error))
            throw error
          }
        }
        log.append("worked")
      }
    }
    let error = await #expect(throws: FeaturesStartFailed.self) { try await root.start() }
    let file = "ArborTests/StartAndStopTests.swift"
    let fix = """
      └─ fix: start the branch after that work ends, or from a task outside it: lifecycle work (a loader, a teardown,
              a before-serving work, a keyed branch's making) never waits for a refresh or a start
      """
    if starter == "eager loader" {
      #expect(error?.diagnostic.causes.map(\.kind) == ["FeatureLoadingFailed"])
      #expect(error?.diagnostic.causes.first?.causes.map(\.kind) == ["LifecycleWorkReentered"])
      #expect(
        refused.all == [
          """
          LifecycleWorkReentered: start() cannot run inside the loader of Pool
          ├─ requested at: \(file):\(loaderStartLine)
          \(fix)
          """
        ])
      #expect(log.all == [])  // the work does not run after a failed load
    } else {
      #expect(error?.diagnostic.causes.map(\.kind) == ["LifecycleWorkReentered"])
      #expect(
        refused.all == [
          """
          LifecycleWorkReentered: start() cannot run inside the work before serving named at \(file):\(workLine)
          ├─ requested at: \(file):\(workStartLine)
          \(fix)
          """
        ])
      #expect(log.all == ["loaded"])
    }
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Pool.self) }
  }

  @Test func aClosedBranchDoesNotStart() async throws {
    let root = FeaturesRoot { _ in }
    try await root.close()
    await #expect(throws: FeaturesClosed.self) { try await root.start() }
  }

  @Test func theProfileShowsTheStartUpAsOneTree() async throws {
    let profile = LoadProfile()
    let root = FeaturesRoot(observer: profile) { registry in
      registry.use(.cacheable(implementation: "live()") { (_: Features) in Cache(name: "cache") })
      registry.use(
        .cacheable(implementation: "live()") { features in
          Pool(name: try features.instance(of: Cache.self).name)
        }, eager: true)
      registry.beforeServing(file: "App/Main.swift", line: 12) { _ in }
    }
    let event = try await root.start()
    #expect(event.steps.map(\.name) == ["Pool.live()", "before serving (App/Main.swift:12)"])
    #expect(event.steps.map(\.feature) == ["Pool", nil])
    #expect(event.failure == nil)
    let report = profile.report().replacingOccurrences(
      of: #"\d+\.\d\d ms"#, with: "<t>", options: .regularExpression)
    #expect(
      report == """
        start-up of Root: <t>
        ├─ Pool.live(): <t>
        │  └─ Cache.live() in Root: <t>
        └─ before serving (App/Main.swift:12): <t>
        2 loads, <t> at the top
        └─ Pool.live() in Root: <t>
           └─ Cache.live() in Root: <t>
        """)
    #expect(profile.starts.count == 1)
    try await root.close()
  }

  // MARK: A start and a close that race

  /// A close races a start: the close's teardown of an eager instance asks for the start, which is
  /// refused at once (the close fails with that), and the start fails, as the close refused its
  /// before-serving work.
  @Test func aStartAskedForByATeardownOfACloseRacingTheStartIsRefused() async throws {
    let (loading, go) = (Flag(), Flag())
    let log = Collected<String>()
    let rootLater = Later<Features>()
    defer { rootLater.clear() }
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ async throws in
          loading.raise()
          _ = await go.suspendUntilRaised()
          return Pool(name: "eager")
        } teardown: { _ in
          do {
            _ = try await rootLater.get.start()
            log.append("started")
          } catch {
            log.append("\(type(of: error))")
            throw error
          }
        }, eager: true)
      registry.beforeServing { features in _ = try await features.instance(of: Cache.self) }
      registry.use(.cacheable { _ in Cache(name: "cache") })
    }
    rootLater.set(root)
    let start = Task { try await root.start() }
    #expect(await loading.suspendUntilRaised())
    let close = Task { try await root.close() }
    #expect(
      await eventually {
        do {
          _ = try root.context(ifPresent: SessionScope.self)
          return false
        } catch {
          return error is FeaturesClosed
        }
      })
    go.raise()
    #expect(await ends { await #expect(throws: FeaturesStartFailed.self) { try await start.value } })
    let error = await #expect(throws: TeardownFailed.self) { try await ended { try await close.value } }
    #expect(error?.failures.map { "\($0.feature)" } == ["Pool"])
    #expect(error?.failures.first?.cause is LifecycleWorkReentered)
    #expect(log.all == ["LifecycleWorkReentered"])
  }
}
