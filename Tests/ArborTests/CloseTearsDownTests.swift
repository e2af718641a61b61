import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// `close()` tears down each cached instance of the branch exactly once, newest first, after
/// closing the branch's open descendants, deepest first. Multiton instances too, each once.
@Suite struct CloseTearsDownTests {
  @Test func eachInstanceIsTornDownOnceNewestFirst() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
      registry.use(resource(log, { Cache(name: "cache") }, named: "cache"))
      registry.use(resource(log, { Journal(name: "journal") }, named: "journal"))
    }
    try synchronously {
      _ = try root.instance(of: Cache.self)
      _ = try root.instance(of: Pool.self)
      _ = try root.instance(of: Journal.self)
      _ = try root.instance(of: Cache.self)  // cached: not loaded again
    }
    try await root.close()
    try await root.close()  // idempotent: nothing runs twice
    #expect(log.all == ["up cache", "up pool", "up journal", "down journal", "down pool", "down cache"])
  }

  @Test func aBranchWithoutTeardownsClosesAndOnlyWhatWasLoadedIsTornDown() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
      registry.use(.cacheable { _ in Cache(name: "no teardown") })
    }
    _ = try synchronously { try root.instance(of: Cache.self) }
    try await root.close()
    #expect(log.all == [])
  }

  @Test func loadersWithAContextTearDownEveryInstanceOnce() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in registry.use(connections(log)) }
    try synchronously {
      for id in [3, 1, 2, 1, 3] { _ = try root.instance(of: Connection.self, context: id) }
    }
    try await root.close()
    #expect(
      log.all == ["up connection 3", "up connection 1", "up connection 2"] + [
        "down connection 2", "down connection 1", "down connection 3",
      ])
  }

  @Test func asyncLoadersAreTornDownToo() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(asyncResource(log, { Pool(name: "pool") }, named: "pool"))
      registry.use(
        .cacheable { (id: Int, _) async throws in
          log.append("up connection \(id)")
          return Connection(id: id)
        } teardown: { connection in
          log.append("down connection \(connection.id)")
        })
    }
    _ = try await root.instance(of: Pool.self)
    _ = try await root.instance(of: Connection.self, context: 7)
    try await root.close()
    #expect(log.all == ["up pool", "up connection 7", "down connection 7", "down pool"])
  }

  struct LivePool: FeatureImplementation {
    static let log = Collected<String>()
    init(context: NoContext, features: Features) throws { Self.log.append("up LivePool") }
    var instance: Pool { Pool(name: "live") }
    static var teardown: (@Sendable (Pool) async throws -> Void)? { { pool in log.append("down \(pool.name)") } }
  }

  struct PlainCache: FeatureImplementation {
    init(context: NoContext, features: Features) throws {}
    var instance: Cache { Cache(name: "plain") }
  }

  @Test func anImplementationTypeTearsDownWithItsTeardownAndHasNoneByDefault() async throws {
    #expect(PlainCache.teardown == nil)
    let root = FeaturesRoot { registry in
      registry.use(LivePool.self)
      registry.use(PlainCache.self)
    }
    try synchronously {
      _ = try root.instance(of: Pool.self)
      _ = try root.instance(of: Cache.self)
    }
    try await root.close()
    #expect(LivePool.log.all == ["up LivePool", "down live"])
    #expect(FeatureLoader.implementation(LivePool.self).hasTeardown)
    #expect(!FeatureLoader.implementation(PlainCache.self).hasTeardown)
  }

  @Test func descendantsCloseFirstDeepestFirstThenTheBranchItself() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            let session = try features.context(for: SessionScope.self)
            log.append("up cache \(session.user)")
            return Cache(name: session.user)
          } teardown: { cache in
            log.append("down cache \(cache.name)")
          })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(
            .cacheable { features in
              let task = try features.context(for: TaskScope.self)
              log.append("up journal \(task)")
              return Journal(name: task)
            } teardown: { journal in
              log.append("down journal \(journal.name)")
            })
        }
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let annTask = try ann.branch(TaskScope.self, context: "a1")
    try synchronously {
      _ = try root.instance(of: Pool.self)
      _ = try ann.instance(of: Cache.self)
      _ = try bob.instance(of: Cache.self)
      _ = try annTask.instance(of: Journal.self)
    }
    try await root.close()
    #expect(
      log.all.filter { $0.hasPrefix("down") } == [
        "down cache bob",  // the newest child first, with nothing below it
        "down journal a1", "down cache ann",  // ann's task before ann
        "down pool",  // the root last
      ])
    // Every branch below is closed.
    #expect(throws: FeaturesClosed.self) { try synchronously { try annTask.instance(of: Journal.self) } }
    #expect(throws: FeaturesClosed.self) { try synchronously { try bob.instance(of: Cache.self) } }
  }

  @Test func closingABranchClosesOnlyItAndWhatIsBelowIt() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Cache(name: "session") }, named: "cache"))
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    try synchronously {
      _ = try ann.instance(of: Cache.self)
      _ = try bob.instance(of: Cache.self)
      _ = try ann.instance(of: Pool.self)
    }
    try await ann.close()
    #expect(log.all == ["up cache", "up cache", "up pool", "down cache"])
    // The sibling, the parent and the root-registered instance are untouched.
    try synchronously {
      #expect(try bob.instance(of: Cache.self).name == "session")
      #expect(try root.instance(of: Pool.self).name == "root")
      _ = try root.branch(SessionScope.self, context: Session(user: "cid"))
    }
    try await bob.close()
    try await root.close()
    #expect(log.all.suffix(2) == ["down cache", "down pool"])
  }

  @Test func branchesMadeByLoadersAreClosedWithTheirParent() async throws {
    let log = Collected<String>()
    // A cacheable that keeps a branch it made through its loader's features (tethered).
    struct Worker: CacheableFeature {
      var task: Features
      static var placeholder: Worker { Worker(task: FeaturesRoot { _ in }) }
    }
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            Worker(task: try features.branch(TaskScope.self, context: "background"))
          })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(resource(log, { Journal(name: "task") }, named: "journal"))
        }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let worker: Worker = try synchronously { try session.instance() }
    _ = try synchronously { try worker.task.instance(of: Journal.self) }
    try await session.close()
    #expect(log.all == ["up journal", "down journal"])
    #expect(throws: FeaturesClosed.self) { try synchronously { try worker.task.instance(of: Journal.self) } }
  }

  @Test func closingTheRootClosesTheWholeTree() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(connections(log))
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try synchronously {
      _ = try session.instance(of: Connection.self, context: 1)
      _ = try session.instance(of: Pool.self)
    }
    try await root.close()
    #expect(log.all == ["up connection 1", "up pool", "down connection 1", "down pool"])
    #expect(throws: FeaturesClosed.self) { try synchronously { try root.instance(of: Pool.self) } }
    #expect(throws: FeaturesClosed.self) { try root.branch(SessionScope.self, context: Session(user: "bob")) }
  }

  @Test func aThrowingTeardownDoesNotStopTheOthersAndCloseThrowsThemAll() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "pool") }, named: "pool", throwing: true))
      registry.use(resource(log, { Cache(name: "cache") }, named: "cache"))
      registry.use(resource(log, { Journal(name: "journal") }, named: "journal", throwing: true))
    }
    try synchronously {
      _ = try root.instance(of: Pool.self)
      _ = try root.instance(of: Cache.self)
      _ = try root.instance(of: Journal.self)
    }
    let error = try await #require(throws: TeardownFailed.self) { try await root.close() }
    #expect(log.all.filter { $0.hasPrefix("down") } == ["down journal", "down cache", "down pool"])
    #expect(error.failures.map { "\($0.feature)" } == ["Journal", "Pool"])
    #expect(error.failures.map(\.implementation) == ["Journal.live()", "Pool.live()"])
    #expect(error.failures.map { "\($0.cause)" } == ["journal would not close", "pool would not close"])
    // Closed all the same; a later close tears nothing down again, and sees the same outcome.
    let again = try await #require(throws: TeardownFailed.self) { try await root.close() }
    #expect(again.failures.map { "\($0.feature)" } == ["Journal", "Pool"])
    #expect(log.all.count == 6)
  }

  @Test func concurrentClosesWaitForTheOneTeardownAndSeeItsOutcome() async throws {
    let log = Collected<String>()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          Pool(name: "pool")
        } teardown: { _ in
          log.append("down pool")
          _ = await release.suspendUntilRaised()
          throw Closed(name: "pool")
        })
    }
    _ = try synchronously { try root.instance(of: Pool.self) }
    let outcomes = await withTaskGroup(of: String.self) { group in
      for _ in 0..<4 {
        group.addTask {
          do {
            try await root.close()
            return "closed"
          } catch let error as TeardownFailed {
            return "\(error.failures.map { "\($0.cause)" })"
          } catch {
            return "\(error)"
          }
        }
      }
      // Until the three closes that did not start first wait for the one that did.
      #expect(await eventually { root.waits.closesForTheClose == 3 })
      release.raise()
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(log.all == ["down pool"])
    #expect(outcomes == Array(repeating: "[\"pool would not close\"]", count: 4))
  }
}
