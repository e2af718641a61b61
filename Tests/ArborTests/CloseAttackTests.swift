import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// Closing combined with the rest: closes that start first, closes from tasks a teardown starts,
/// closes from actors, closes racing requests and each other, and what a close started inside a
/// load does with teardowns that throw.
@Suite struct CloseAttackTests {
  // MARK: Closes that started first

  /// A close of an ancestor reaches a descendant whose own close started first: it waits for that
  /// close before the ancestor's teardowns run, and returns only once it ended.
  @Test func aRootCloseWaitsForASessionCloseThatStartedFirst() async throws {
    let log = Collected<String>()
    let sessionTeardownStarted = Flag()
    let rootClosed = Flag()
    let sessionLater = Later<Features>()
    defer { sessionLater.clear() }  // the tree's teardowns reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "root pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Cache(name: "session")
          } teardown: { _ in
            sessionTeardownStarted.raise()
            // Until the root's close waits for this one, or, had it not waited, ended.
            _ = await eventually { rootClosed.isRaised || sessionLater.get.waits.closesForTheClose == 1 }
            log.append("down session cache\(rootClosed.isRaised ? " after the root closed" : "")")
          })
      }
    }
    _ = try await root.instance(of: Pool.self)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    sessionLater.set(session)
    _ = try await session.instance(of: Cache.self)
    let sessionClose = Task { try await session.close() }
    #expect(await sessionTeardownStarted.suspendUntilRaised())
    #expect(
      await ends {
        try await root.close()
        rootClosed.raise()
      })
    try await sessionClose.value
    #expect(log.all == ["up root pool", "down session cache", "down root pool"])
  }

  /// A session's teardown closes the root while the root's close, started meanwhile, waits for the
  /// session's: inside a teardown, that close joins the root's and returns at once, and both end.
  @Test func aSessionTeardownClosingTheRootWhileTheRootClosesReturnsAtOnce() async throws {
    let log = Collected<String>()
    let rootLater = Later<Features>()
    let sessionLater = Later<Features>()
    defer {  // the tree's loaders reach them: let go, or they keep the tree
      rootLater.clear()
      sessionLater.clear()
    }
    let teardownStarted = Flag()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "root pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Closer(close: { try await rootLater.get.close() })
          } teardown: { closer in
            teardownStarted.raise()
            // Until the root's close has reached this session, and waits for this close.
            #expect(await eventually { sessionLater.get.waits.closesForTheClose == 1 })
            try await closer.close()
            log.append("session closed the root")
          })
      }
    }
    rootLater.set(root)
    _ = try await root.instance(of: Pool.self)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    sessionLater.set(session)
    _ = try await session.instance(of: Closer.self)
    let sessionClose = Task { try await session.close() }
    #expect(await teardownStarted.suspendUntilRaised())
    #expect(await ends { try await root.close() })
    #expect(await ends { try await sessionClose.value })
    #expect(log.all == ["up root pool", "session closed the root", "down root pool"])
  }

  /// An async loader closes its own branch while a close of the root, started first, waits for the
  /// load: inside a loader, that close joins the root's and returns at once, and both end.
  @Test func anAsyncLoaderClosingItsBranchWhileTheRootClosesReturnsAtOnce() async throws {
    let log = Collected<String>()
    let loaderStarted = Flag()
    let rootClosing = Flag()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (features: Features) async throws in
            loaderStarted.raise()
            _ = await rootClosing.suspendUntilRaised()
            try await features.close()
            log.append("loader closed its branch")
            return Cache(name: "loaded")
          } teardown: { cache in
            log.append("down \(cache.name)")
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = Task { try await session.instance(of: Cache.self) }
    #expect(await loaderStarted.suspendUntilRaised())
    let rootClose = Task { try await root.close() }
    #expect(await eventually { session.waits.closesForLoads == 1 })  // the root's close waits for the load
    rootClosing.raise()
    #expect(await ends { try await rootClose.value })
    #expect(await ends { _ = try await request.value })
    #expect(log.all == ["loader closed its branch", "down loaded"])
  }

  /// Tasks a teardown starts, without awaiting them, close the branch again once the close ended:
  /// a task that inherits the teardown is lifecycle work, so its close returns at once, without the
  /// outcome; a detached task is not, and gets the close's outcome, as every later close does.
  @Test func aCloseFromATaskATeardownStartedReturnsAtOnceAndADetachedOneGetsTheOutcome() async throws {
    let log = Collected<String>()
    let firstCloseEnded = Flag()
    let laterCloses = Lock<[Task<String, Never>]>.make([])
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Pool(name: "pool") }, named: "pool", throwing: true))
        registry.use(
          .cacheable { (features: Features) in
            Closer(close: {
              @Sendable func closeOnceEnded() async -> String {
                _ = await firstCloseEnded.suspendUntilRaised()
                do {
                  try await features.close()
                  return "closed"
                } catch {
                  return "\(type(of: error))"
                }
              }
              let inherited = Task { await closeOnceEnded() }
              let detached = Task.detached { await closeOnceEnded() }
              laterCloses.withLock { $0 = [inherited, detached] }
            })
          } teardown: { closer in
            try await closer.close()
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Pool.self)
    _ = try await session.instance(of: Closer.self)
    await #expect(throws: TeardownFailed.self) { try await session.close() }
    firstCloseEnded.raise()
    let tasks = laterCloses.withLock { $0 }
    try #require(tasks.count == 2)
    #expect(try await ended { await tasks[0].value } == "closed")
    #expect(try await ended { await tasks[1].value } == "TeardownFailed")
    #expect(log.all == ["up pool", "down pool"])
    try await root.close()
  }

  /// A close an async loader starts in its own branch goes on after the loader's close returned:
  /// a teardown of it that throws is reported, since no caller waits for its outcome.
  @Test func aTeardownFailureOfACloseALoaderStartedIsReported() async throws {
    let log = Collected<String>()
    let reports = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Pool(name: "pool") }, named: "pool", throwing: true))
        registry.use(
          .cacheable { (features: Features) async throws in
            try await features.close()
            return Cache(name: "closing")
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let sessionClosed = Flag()
    let capture = IssueReporting.Capture<IssueReporting.Report> { report in
      reports.append(report.diagnostic.kind)
      sessionClosed.raise()
    }
    try await IssueReporting.$capture.withValue(capture) {
      _ = try await session.instance(of: Pool.self)
      _ = try await session.instance(of: Cache.self)
      #expect(await sessionClosed.suspendUntilRaised(seconds: 10))
      try await root.close()
    }
    #expect(log.all == ["up pool", "down pool"])
    #expect(reports.all == ["TeardownFailed"])
  }

  // MARK: Closes from tasks a teardown starts

  /// A teardown awaits a task it starts, which closes the teardown's own branch: the task inherits
  /// the teardown, lifecycle work, so its close returns at once, and the close ends.
  @Test func aTeardownAwaitingATaskThatClosesItsOwnBranchEnds() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Pool(name: "pool") }, named: "pool"))
        registry.use(
          .cacheable { (features: Features) in
            Closer(close: { try await Task { try await features.close() }.value })
          } teardown: { closer in
            try await closer.close()
            log.append("closer's task closed its branch")
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Pool.self)
    _ = try await session.instance(of: Closer.self)
    #expect(await ends { try await session.close() })
    #expect(log.all == ["up pool", "closer's task closed its branch", "down pool"])
    #expect(await ends { try await root.close() })
  }

  /// A teardown of one session closes another, unrelated session: that close returns at once,
  /// before the other session's teardowns run, and goes on; the other session is closed, and its
  /// teardowns run once.
  @Test func aTeardownClosingAnotherSessionReturnsAtOnceAndThatCloseGoesOn() async throws {
    let log = Collected<String>()
    let closedTheOther = Flag()
    let other = Later<Features>()
    defer { other.clear() }  // the tree's loaders reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (features: Features) in
            Pool(name: try features.context(for: SessionScope.self).user)
          } teardown: { pool in
            // Held until ann's teardown returned from its close of this session.
            _ = await closedTheOther.suspendUntilRaised()
            log.append("down \(pool.name)")
          })
        registry.use(
          .cacheable { _ in
            Closer(close: { try await other.get.close() })
          } teardown: { closer in
            try await closer.close()
            log.append("closed the other session")
            closedTheOther.raise()
          })
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    other.set(bob)
    _ = try await ann.instance(of: Closer.self)
    _ = try await bob.instance(of: Pool.self)
    #expect(await ends { try await ann.close() })
    await #expect(throws: FeaturesClosed.self) { try await bob.instance(of: Pool.self) }
    #expect(await ends { try await bob.close() })  // from outside: waits for the close that goes on
    #expect(log.all == ["closed the other session", "down bob"])
    #expect(await ends { try await root.close() })
  }

  /// Sessions whose teardowns close the next one in a ring (ann's closes bob's, bob's closes ann's;
  /// or a ring of three), each close started apart and all in their teardowns at once: each close
  /// made inside a teardown returns at once, so none waits for another, and every close ends, each
  /// teardown run once.
  @Test(arguments: [["ann", "bob"], ["ann", "bob", "cid"]])
  func sessionsWhoseTeardownsCloseEachOtherAtOnceEnd(users: [String]) async throws {
    let log = Collected<String>()
    let sessions = Later<[String: Features]>()
    defer { sessions.clear() }  // the tree's teardowns reach them: let go, or they keep the tree
    let inTeardown = Dictionary(uniqueKeysWithValues: users.map { ($0, Flag()) })
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (features: Features) in
            let user = try features.context(for: SessionScope.self).user
            let next = users[(users.firstIndex(of: user)! + 1) % users.count]
            return Closer(close: {
              inTeardown[user]!.raise()
              // Until every session is in its teardown: each close then waits for the next.
              for flag in inTeardown.values { #expect(await flag.suspendUntilRaised()) }
              try await sessions.get[next]!.close()
              log.append("\(user) closed \(next)")
            })
          } teardown: { closer in
            try await closer.close()
          })
      }
    }
    var branches: [String: Features] = [:]
    for user in users {
      let session = try root.branch(SessionScope.self, context: Session(user: user))
      _ = try await session.instance(of: Closer.self)
      branches[user] = session
    }
    sessions.set(branches)
    let closed = Collected<String>()
    for (user, session) in branches {
      Task {
        try await session.close()
        closed.append(user)
      }
    }
    #expect(await eventually(seconds: 30) { closed.all.count == users.count })
    #expect(Set(log.all) == Set(users.indices.map { "\(users[$0]) closed \(users[($0 + 1) % users.count])" }))
    #expect(log.all.count == users.count)
    #expect(await ends { try await root.close() })
  }

  /// A root's close reaches a session (ann) closing apart, whose teardown closes a sibling (bob)
  /// that the root's close runs: inside a teardown, that close joins the root's and returns at
  /// once; the root's close waits for ann's, and tears the root down last.
  @Test func aRootCloseWaitsForASessionWhoseTeardownClosedASiblingTheRootCloses() async throws {
    let log = Collected<String>()
    let sessions = Later<[String: Features]>()
    defer { sessions.clear() }  // the tree's teardowns reach them: let go, or they keep the tree
    let annInTeardown = Flag()
    let bobInTeardown = Flag()
    let annClosedBob = Flag()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "root pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Closer(close: {
              annInTeardown.raise()
              #expect(await bobInTeardown.suspendUntilRaised())
              try await sessions.get["bob"]!.close()
              log.append("ann closed bob")
              annClosedBob.raise()
            })
          } teardown: { closer in
            try await closer.close()
          })
        registry.use(
          .cacheable { (features: Features) in
            Pool(name: try features.context(for: SessionScope.self).user)
          } teardown: { pool in
            bobInTeardown.raise()
            // Ann's close of bob returned without waiting for this teardown.
            #expect(await annClosedBob.suspendUntilRaised())
            log.append("down \(pool.name)")
          })
      }
    }
    _ = try await root.instance(of: Pool.self)
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    sessions.set(["ann": ann, "bob": bob])
    _ = try await ann.instance(of: Closer.self)
    _ = try await bob.instance(of: Pool.self)
    let annClose = Task { try await ann.close() }
    #expect(await annInTeardown.suspendUntilRaised())
    #expect(await ends { try await root.close() })
    #expect(log.all == ["up root pool", "ann closed bob", "down bob", "down root pool"])
    try await annClose.value
  }

  // MARK: Closes from actors

  actor Owner {
    let executor = CountingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    var pings = 0
    func ping() { pings += 1 }

    func close(_ features: Features) async throws {
      try await features.close()
    }
  }

  /// A close called on an actor whose teardowns call back into that actor ends: the actor is free
  /// while its close waits for the teardowns.
  @Test func aCloseOnAnActorWhoseTeardownsCallTheActorEnds() async throws {
    let owner = Owner()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          Pool(name: "pool")
        } teardown: { _ in
          await owner.ping()
        })
    }
    _ = try await root.instance(of: Pool.self)
    #expect(await ends { try await owner.close(root) })
    #expect(await owner.pings == 1)
  }

  /// A close called on the main actor whose teardown is isolated to the main actor ends, and the
  /// teardown runs there.
  @MainActor @Test func aCloseOnTheMainActorWithAMainActorTeardownEnds() async throws {
    let ranOnMainActor = Lock<Bool?>.make(nil)
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { _ in
          Pool(name: "pool")
        } teardown: { @MainActor _ in
          MainActor.assertIsolated()
          ranOnMainActor.withLock { $0 = true }
        })
    }
    _ = try await root.instance(of: Pool.self)
    try await root.close()
    #expect(ranOnMainActor.withLock { $0 } == true)
  }

  // MARK: Cancellation

  /// A cancelled `withBranch` whose teardown throws throws `TeardownFailed` of that teardown, never
  /// a `CancellationError`, and its teardowns start uncancelled.
  @Test func aCancelledWithBranchWhoseTeardownThrowsThrowsTeardownFailed() async throws {
    let log = Collected<String>()
    let bodyStarted = Flag()
    let cancelled = Flag()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Pool(name: "pool")
          } teardown: { _ in
            log.append("down pool \(Task.isCancelled ? "cancelled" : "uncancelled")")
            throw Closed(name: "pool")
          })
      }
    }
    let task = Task {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        _ = try await session.instance(of: Pool.self)
        bodyStarted.raise()
        _ = await cancelled.suspendUntilRaised()
      }
    }
    #expect(await bodyStarted.suspendUntilRaised())
    task.cancel()
    cancelled.raise()
    await #expect(throws: TeardownFailed.self) { try await task.value }
    #expect(log.all == ["down pool uncancelled"])
  }

  // MARK: Concurrent use

  /// Many tasks request (sync, async, multitons, nested scopes) while others close sessions and the
  /// root: every close ends, every request either answers or throws `FeaturesClosed`, and every
  /// instance loaded is torn down exactly once, each branch after the branches below it.
  @Test func closesRacingRequestsTearEveryInstanceDownOnce() async throws {
    let loaded = Tally()
    let tornDown = Tally()
    let order = Collected<String>()
    let recorder = ClosedOrder(order)
    let root = FeaturesRoot(observer: recorder) { registry in
      registry.use(
        .cacheable { _ in
          loaded.next()
          return Pool(name: "root")
        } teardown: { _ in
          tornDown.next()
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(counted({ Cache(name: "session") }, loaded: loaded, tornDown: tornDown))
        registry.use(
          .cacheable { (id: Int, _) in
            loaded.next()
            return Connection(id: id)
          } teardown: { _ in
            tornDown.next()
          })
        registry.defineScope(TaskScope.self) { registry in
          registry.use(
            .cacheable { _ in
              loaded.next()
              return Journal(name: "task")
            } teardown: { _ in
              tornDown.next()
            })
        }
      }
    }
    let unexpected = Collected<String>()
    // Kept until the root's close: a branch dropped open is the test's mistake, not the close's.
    let kept = Collected<Features>()
    func expectClosedOrNothing(_ body: () async throws -> Void) async {
      do { try await body() } catch is FeaturesClosed {} catch { unexpected.append("\(error)") }
    }
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<24 {
        group.addTask {
          await expectClosedOrNothing {
            let session = try root.branch(SessionScope.self, context: Session(user: "user \(index % 4)"))
            kept.append(session)
            _ = try synchronously { try root.instance(of: Pool.self) }
            _ = try await session.instance(of: Cache.self)
            _ = try synchronously { try session.instance(of: Connection.self, context: index % 3) }
            let task = try session.branch(TaskScope.self, context: "task \(index)")
            kept.append(task)
            _ = try await task.instance(of: Journal.self)
            if index % 2 == 0 { try await task.close() }
            if index % 3 == 0 { try await session.close() }
            if index == 17 { try await root.close() }
            // Closed sessions left open: the root's close reaches them.
            _ = try await task.instance(of: Journal.self)
          }
        }
      }
      group.addTask { await expectClosedOrNothing { try await root.close() } }
    }
    #expect(await ends { try await root.close() })
    #expect(unexpected.all == [])
    #expect(loaded.value == tornDown.value)
    #expect(order.all.last == "Root")
    withExtendedLifetime(kept) {}
  }

  /// Closes of one branch from detached tasks: each ends with the outcome of the one close.
  @Test func detachedClosesOfOneBranchAllGetTheOutcome() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "pool") }, named: "pool", throwing: true))
    }
    _ = try await root.instance(of: Pool.self)
    let outcomes = Collected<String>()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await Task.detached {
            do {
              try await root.close()
              outcomes.append("closed")
            } catch {
              outcomes.append("\(type(of: error))")
            }
          }.value
        }
      }
    }
    #expect(outcomes.all == Array(repeating: "TeardownFailed", count: 8))
    #expect(log.all == ["up pool", "down pool"])
  }

  // MARK: KeyedBranches

  /// With room for one session, using a second evicts the first, whose teardown uses a third: every
  /// close ends and each session is torn down once.
  @Test func anEvictedSessionWhoseTeardownUsesAnotherKeyEnds() async throws {
    let log = Collected<String>()
    let sessions = Later<KeyedBranches<String, SessionScope>>()
    defer { sessions.clear() }  // the tree's loaders reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (features: Features) in
            Pool(name: try features.context(for: SessionScope.self).user)
          } teardown: { pool in
            if pool.name == "ann" {
              try await sessions.get.withBranch(for: "carol") { _ = try await $0.instance(of: Pool.self) }
            }
            log.append("down \(pool.name)")
          })
      }
    }
    sessions.set(KeyedBranches(SessionScope.self, of: root, maximumCount: 1) { Session(user: $0) })
    #expect(
      await ends {
        try await sessions.get.withBranch(for: "ann") { _ = try await $0.instance(of: Pool.self) }
        try await sessions.get.withBranch(for: "bob") { _ = try await $0.instance(of: Pool.self) }
      })
    #expect(await ends { try await sessions.get.close() })
    #expect(await ends { try await root.close() })
    #expect(log.all.sorted() == ["down ann", "down bob", "down carol"])
  }

  /// Requests through a `KeyedBranches` with a limit race evictions, the set's close and the root's:
  /// every call ends, and every instance loaded is torn down once.
  @Test func keyedBranchesRacingClosesTearEveryInstanceDownOnce() async throws {
    let loaded = Tally()
    let tornDown = Tally()
    let unexpected = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(counted({ Pool(name: "session") }, loaded: loaded, tornDown: tornDown))
      }
    }
    let sessions = KeyedBranches(SessionScope.self, of: root, maximumCount: 2) { Session(user: $0) }
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<32 {
        group.addTask {
          do {
            switch index % 8 {
            case 3: try await sessions.evict("user \(index % 5)")
            case 7 where index > 16: try await sessions.close()
            default:
              try await sessions.withBranch(for: "user \(index % 5)") { _ = try await $0.instance(of: Pool.self) }
            }
          } catch is FeaturesClosed {
          } catch is KeyedBranchesClosed {
          } catch {
            unexpected.append("\(error)")
          }
        }
      }
      group.addTask { try? await root.close() }
    }
    #expect(await ends { try await sessions.close() })
    #expect(await ends { try await root.close() })
    #expect(unexpected.all == [])
    #expect(loaded.value == tornDown.value)
  }

  // MARK: withBranch

  /// A `withBranch` body closes the root: the root's close reaches the body's branch, and the
  /// `withBranch` ends with the body's result once that branch is closed.
  @Test func aWithBranchBodyThatClosesTheRootEnds() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(resource(log, { Pool(name: "root") }, named: "root pool"))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Cache(name: "session") }, named: "session cache"))
      }
    }
    _ = try await root.instance(of: Pool.self)
    let result = Lock<String?>.make(nil)
    #expect(
      await ends {
        let value = try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
          _ = try await session.instance(of: Cache.self)
          try await root.close()
          return "body's result"
        }
        result.withLock { $0 = value }
      })
    #expect(result.withLock { $0 } == "body's result")
    #expect(log.all == ["up root pool", "up session cache", "down session cache", "down root pool"])
  }

  // MARK: Side paths below a closed branch

  /// A branch below a closed one answers no side path: the root's close reached it.
  @Test func aBranchBelowAClosedOneAnswersNoSidePath() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.defineScope(TaskScope.self) { _ in }
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let task = try session.branch(TaskScope.self, context: "task")
    try await root.close()
    #expect(throws: FeaturesClosed.self) { try task.instanceIfDefined(of: Pool.self) }
    await #expect(throws: FeaturesClosed.self) { try await task.instanceIfDefined(of: Pool.self) }
    #expect(throws: FeaturesClosed.self) { try task.context(ifPresent: SessionScope.self) }
    #expect(throws: FeaturesClosed.self) { try task.context(for: TaskScope.self) }
    #expect(task.which(Pool.self).diagnostic?.kind == "FeaturesClosed")
    #expect(task.which(RequestTimeout.self).diagnostic?.kind == "FeaturesClosed")
  }

  /// A loader's features kept by its instance answer no side path once their branch closed.
  @Test func keptLoaderFeaturesAnswerNoSidePathOnceClosed() async throws {
    let kept = Later<Features>()
    defer { kept.clear() }  // the tree's loaders reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { (features: Features) in
            kept.set(features)
            return Pool(name: "pool")
          })
      }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try session.instance(of: Pool.self) }
    try await session.close()
    let features = kept.get
    #expect(throws: FeaturesClosed.self) { try features.context(ifPresent: SessionScope.self) }
    #expect(throws: FeaturesClosed.self) { try features.instanceIfDefined(of: Cache.self) }
    #expect(features.which(Cache.self).diagnostic?.kind == "FeaturesClosed")
    try await root.close()
  }
}

/// Records the scope of each branch closed, innermost scope name only.
final class ClosedOrder: FeaturesObserver {
  let order: Collected<String>
  init(_ order: Collected<String>) { self.order = order }
  func branchClosed(_ branch: BranchEvent) { order.append(branch.scope.last?.name ?? "?") }
}

/// An async cacheable loader of `make`'s feature that counts its loads and its teardowns.
private func counted<F: CacheableFeature>(
  _ make: @escaping @Sendable () -> F, loaded: Tally, tornDown: Tally
) -> FeatureLoader where F.Context == NoContext {
  .cacheable { _ async in
    loaded.next()
    await Task.yield()
    return make()
  } teardown: { _ in
    await Task.yield()
    tornDown.next()
  }
}
