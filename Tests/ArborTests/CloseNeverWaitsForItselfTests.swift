import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Synchronization
import Testing

/// A close never waits for itself, and never starts a teardown cancelled: inside lifecycle work (a
/// loader, a teardown, a keyed branch's making), a close of any branch, the work's own included,
/// starts or joins that close and returns at once.
@Suite struct CloseNeverWaitsForItselfTests {
  /// A resource whose teardown (or loader) runs `action` with the features it was loaded with.
  struct Resource: CacheableFeature {
    var name: String
    static var placeholder: Resource { Resource(name: "placeholder") }
  }

  /// The teardown's close joins the close it is part of and returns at once.
  @Test func aTeardownThatClosesItsOwnBranchAgainReturnsAtOnce() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            Resource(name: "session")
          } teardown: { _ in
            log.append("down session")
          })
        registry.use(
          .cacheable { (features: Features) in
            // Kept by the instance: the teardown closes the branch it was loaded in.
            Closer(close: { try await features.close() })
          } teardown: { closer in
            try await closer.close()
            log.append("closer closed its branch")
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Resource.self)
    _ = try await session.instance(of: Closer.self)
    #expect(await ends { try await session.close() })
    #expect(log.all == ["closer closed its branch", "down session"])
    #expect(await ends { try await session.close() })  // a later close gets the outcome
    #expect(await ends { try await root.close() })
  }

  /// A session's teardown closes the root: that close returns at once, and goes on. The root is
  /// closed when the session's close returns, and its own teardowns run after the session's.
  @Test func aTeardownThatClosesTheRootReturnsAtOnceAndTheRootIsClosedAfter() async throws {
    let log = Collected<String>()
    let rootLater = Later<Features>()
    defer { rootLater.clear() }  // the tree's loaders reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "root pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Closer(close: { try await rootLater.get.close() })
          } teardown: { closer in
            try await closer.close()
            log.append("closer closed the root")
          })
      }
    }
    rootLater.set(root)
    _ = try await root.instance(of: Pool.self)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Closer.self)
    #expect(await ends { try await session.close() })
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Pool.self) }
    #expect(await ends { try await root.close() })  // from outside: waits for the close that goes on
    #expect(log.all == ["up root pool", "closer closed the root", "down root pool"])
  }

  /// The root's close reaches a keyed session whose teardown evicts its own key: the evict returns
  /// at once, and every close ends.
  @Test func aSessionTeardownThatEvictsItsKeyWhileTheRootClosesReturnsAtOnce() async throws {
    let log = Collected<String>()
    let sessions = Later<KeyedBranches<String, SessionScope>>()
    defer { sessions.clear() }  // the tree's loaders reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            let user = try features.context(for: SessionScope.self).user
            return Closer(close: { try await sessions.get.evict(user) })
          } teardown: { closer in
            try await closer.close()
            log.append("evicted")
          })
      }
    }
    sessions.set(KeyedBranches(SessionScope.self, of: root) { Session(user: $0) })
    try await sessions.get.withBranch(for: "ann") { session in _ = try await session.instance(of: Closer.self) }
    #expect(await ends { try await root.close() })
    #expect(log.all == ["evicted"])
    #expect(await ends { try await sessions.get.close() })
  }

  /// The loader's close returns at once; the close goes on, waits for the load, and tears its
  /// instance down; a later close from outside gets its outcome.
  @Test func anAsyncLoaderThatClosesItsOwnBranchReturnsAtOnceAndTheCloseTearsItsLoadDown() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (features: Features) async throws in
            try await features.close()
            log.append("loader closed its branch")
            return Resource(name: "loaded")
          } teardown: { resource in
            log.append("down \(resource.name)")
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(await ends { _ = try await session.instance(of: Resource.self) })
    #expect(await ends { try await session.close() })
    #expect(log.all == ["loader closed its branch", "down loaded"])
    await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Resource.self) }
    #expect(await ends { try await root.close() })
  }

  /// The loader's close of the root returns at once: its load ends, and the root's close, which
  /// waited for it, tears it down.
  @Test func anAsyncLoaderThatClosesTheRootReturnsAtOnce() async throws {
    let log = Collected<String>()
    let rootLater = Later<Features>()
    defer { rootLater.clear() }  // the tree's loaders reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (_: Features) async throws in
            try await rootLater.get.close()
            return Resource(name: "loaded")
          } teardown: { resource in
            log.append("down \(resource.name)")
          })
      }
    }
    rootLater.set(root)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(await ends { _ = try await session.instance(of: Resource.self) })
    #expect(await ends { try await root.close() })
    #expect(log.all == ["down loaded"])
  }

  @Test func teardownsAfterACancellationStartUncancelled() async throws {
    let log = Collected<String>()
    let firstStarted = Flag()
    let cancelled = Flag()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Pool(name: "older")
          } teardown: { _ in
            try await Task.sleep(for: .milliseconds(1))  // throws if this teardown starts cancelled
            log.append("down older \(Task.isCancelled ? "cancelled" : "uncancelled")")
          })
        registry.use(
          .cacheable { _ in
            Cache(name: "newer")
          } teardown: { _ in
            firstStarted.raise()
            _ = await cancelled.suspendUntilRaised()
            log.append("down newer")
          })
      }
    }
    let task = Task {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        _ = try session.instance(of: Pool.self)
        _ = try session.instance(of: Cache.self)
        return "body's result"
      }
    }
    #expect(await firstStarted.suspendUntilRaised())
    task.cancel()
    cancelled.raise()
    #expect(try await task.value == "body's result")
    #expect(log.all == ["down newer", "down older uncancelled"])
  }

  @Test func aCloseCancelledPartWayRunsTheRestUncancelled() async throws {
    let log = Collected<String>()
    let firstStarted = Flag()
    let cancelled = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          Pool(name: "older")
        } teardown: { _ in
          try await Task.sleep(for: .milliseconds(1))
          log.append("down older \(Task.isCancelled ? "cancelled" : "uncancelled")")
        })
      registry.use(
        .cacheable { _ in
          Cache(name: "newer")
        } teardown: { _ in
          firstStarted.raise()
          _ = await cancelled.suspendUntilRaised()
          log.append("down newer")
        })
    }
    _ = try await root.instance(of: Pool.self)
    _ = try await root.instance(of: Cache.self)
    let task = Task { try await root.close() }
    #expect(await firstStarted.suspendUntilRaised())
    task.cancel()
    cancelled.raise()
    try await task.value
    #expect(log.all == ["down newer", "down older uncancelled"])
  }
}

/// Keeps a way to close something, for a teardown or loader to call.
struct Closer: CacheableFeature {
  var close: @Sendable () async throws -> Void
  static var placeholder: Closer { Closer(close: {}) }
}
