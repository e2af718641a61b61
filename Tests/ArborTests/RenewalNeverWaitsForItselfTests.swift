import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Synchronization
import Testing

/// A renewal's teardowns never start cancelled, and they are lifecycle work: the teardown of a
/// refreshed or expired instance may close any branch of its tree, while another close of that tree
/// runs, and that close returns at once; a close from outside waits for the renewal's teardowns.
@Suite struct RenewalNeverWaitsForItselfTests {
  /// A session resource whose teardown waits for `go`, then runs `close`.
  static func closing(
    _ close: @escaping @Sendable () async throws -> Void, inTeardown: Flag, go: Flag, log: Collected<String>,
    timeToLive: Duration? = nil
  ) -> FeatureLoader {
    .cacheable(timeToLive: timeToLive) { _ in
      Closer(close: close)
    } teardown: { closer in
      inTeardown.raise()
      _ = await go.suspendUntilRaised(seconds: 30)
      try await closer.close()
      log.append("closed")
    }
  }

  /// Whether requests through `features` fail as their branch closes.
  static func isClosing(_ features: Features) -> Bool {
    do {
      _ = try features.context(ifPresent: SessionScope.self)
      return false
    } catch {
      return error is FeaturesClosed
    }
  }

  /// A refresh's teardown closes the root, or a sibling, while the root's close runs: that close
  /// joins the root's and returns at once; the refresh, then the root's close, end.
  @Test(arguments: ["the root", "a sibling"])
  func aRefreshTeardownClosingABranchWhileTheRootClosesReturnsAtOnce(closing target: String) async throws {
    let (inTeardown, go, log) = (Flag(), Flag(), Collected<String>())
    let closed = Later<Features>()
    defer { closed.clear() }
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Self.closing({ try await closed.get.close() }, inTeardown: inTeardown, go: go, log: log))
      }
    }
    closed.set(target == "the root" ? root : try root.branch(SessionScope.self, context: Session(user: "bob")))
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await ann.instance(of: Closer.self)
    let refresh = Task { try await ann.refresh(Closer.self) }
    #expect(await inTeardown.suspendUntilRaised())
    let rootClose = Task { try await root.close() }
    #expect(await eventually { Self.isClosing(ann) })
    go.raise()
    #expect(await ends { _ = try await refresh.value })
    #expect(await ends { try await rootClose.value })
    #expect(log.all == ["closed"])
  }

  /// The same with the teardown of an expired instance, which a request renewed.
  @Test func anExpiredInstanceTeardownClosingTheRootWhileTheRootClosesReturnsAtOnce() async throws {
    let clock = ManualClock()
    let (inTeardown, go, log) = (Flag(), Flag(), Collected<String>())
    let rootLater = Later<Features>()
    defer { rootLater.clear() }
    let root = FeaturesRoot(clock: clock) { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          Self.closing(
            { try await rootLater.get.close() }, inTeardown: inTeardown, go: go, log: log, timeToLive: .seconds(10)))
      }
    }
    rootLater.set(root)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Closer.self)
    clock.advance(by: .seconds(11))
    _ = try await session.instance(of: Closer.self)  // renews it: the expired one's teardown runs in a task
    #expect(await inTeardown.suspendUntilRaised())
    let rootClose = Task { try await root.close() }
    #expect(await eventually { Self.isClosing(session) })
    go.raise()
    #expect(await ends { try await rootClose.value })
    #expect(await eventually { log.all.count == 2 })  // the expired instance's, then the renewed one's
  }

  /// A refresh's teardown closes bob while bob's close, started apart, runs a teardown that
  /// refreshes: that refresh is refused at once (bob's close fails with it), and the refresh
  /// teardown's close of bob returns at once.
  @Test func aRefreshInACloseTeardownIsRefusedWhileARefreshTeardownClosesThatBranch() async throws {
    let (inFirst, goFirst, inSecond, goSecond) = (Flag(), Flag(), Flag(), Flag())
    let log = Collected<String>()
    let pools = Tally()
    let rootLater = Later<Features>()
    let bobLater = Later<Features>()
    defer {
      rootLater.clear()
      bobLater.clear()
    }
    let root = FeaturesRoot { registry in
      // Refreshed first: its teardown closes bob's session.
      registry.use(Self.closing({ try await bobLater.get.close() }, inTeardown: inFirst, go: goFirst, log: log))
      registry.use(.cacheable { _ in Pool(name: "pool \(pools.next())") })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Resource(name: "bob")
          } teardown: { _ in
            inSecond.raise()
            _ = await goSecond.suspendUntilRaised(seconds: 30)
            do {
              _ = try await rootLater.get.refresh(Pool.self)
              log.append("refreshed")
            } catch {
              log.append("\(type(of: error))")
              throw error
            }
          })
      }
    }
    rootLater.set(root)
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    bobLater.set(bob)
    _ = try await root.instance(of: Closer.self)
    _ = try await root.instance(of: Pool.self)
    _ = try await bob.instance(of: Resource.self)
    let refresh = Task { try await root.refresh(Closer.self) }
    #expect(await inFirst.suspendUntilRaised())
    let closeBob = Task { try await bob.close() }
    #expect(await inSecond.suspendUntilRaised())
    goSecond.raise()
    // Bob's close ends while the refresh holds its turn: its teardown's refresh did not queue.
    let error = await #expect(throws: TeardownFailed.self) { try await ended { try await closeBob.value } }
    #expect(error?.failures.map { "\(type(of: $0.cause))" } == ["LifecycleWorkReentered"])
    goFirst.raise()
    #expect(try await ended { try await refresh.value }.map(\.feature) == ["Closer"])
    #expect(log.all == ["LifecycleWorkReentered", "closed"])
    #expect(try await root.instance(of: Pool.self).name == "pool 1")  // never renewed
    #expect(await ends { try await root.close() })
  }

  @Test func aRefreshFromACancelledTaskRunsItsTeardownsUncancelled() async throws {
    let log = Collected<String>()
    let go = Flag()
    let root = FeaturesRoot {
      $0.use(
        .cacheable { _ in
          Pool(name: "pool")
        } teardown: { _ in
          log.append(Task.isCancelled ? "down cancelled" : "down uncancelled")
        })
    }
    _ = try await root.instance(of: Pool.self)
    let refresh = Task {
      _ = await go.suspendUntilRaised()
      return try await root.refresh(Pool.self)
    }
    refresh.cancel()
    go.raise()
    #expect(try await refresh.value.count == 1)
    #expect(log.all == ["down uncancelled"])
    _ = try await root.instance(of: Pool.self)  // loaded anew, torn down by the close
    try await root.close()
    #expect(log.all == ["down uncancelled", "down uncancelled"])
  }

  @Test func aRefreshInACancelledWithBranchBodyRunsItsTeardownsUncancelled() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Pool(name: "pool")
          } teardown: { _ in
            log.append(Task.isCancelled ? "down cancelled" : "down uncancelled")
          })
      }
    }
    let go = Flag()
    let task = Task {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        _ = try await session.instance(of: Pool.self)
        _ = await go.suspendUntilRaised()
        _ = try await session.refresh(Pool.self)
        _ = try await session.instance(of: Pool.self)  // loaded anew, torn down by the close
      }
    }
    task.cancel()
    go.raise()
    try await task.value
    #expect(log.all == ["down uncancelled", "down uncancelled"])
  }

  /// The root's close waits for the teardowns renewals still owe in its branches (an expired
  /// pool's), while the teardown of a refresh there closes the root: that close joins the root's
  /// and returns at once, before the root's close has reached the renewal's branch.
  @Test func aRootCloseWaitsForRenewalTeardownsWhileARefreshTeardownClosingTheRootReturnsAtOnce() async throws {
    let clock = ManualClock()
    let (inRefreshTeardown, goRefreshTeardown, inExpired, goExpired, inChild, goChild) = (
      Flag(), Flag(), Flag(), Flag(), Flag(), Flag()
    )
    let log = Collected<String>()
    let pools = Tally()
    let rootLater = Later<Features>()
    defer { rootLater.clear() }
    let root = FeaturesRoot(clock: clock) { registry in
      registry.defineScope(SessionScope.self) { registry in
        // Refreshed: its teardown closes the root, which another task closes.
        registry.use(
          Self.closing(
            { try await rootLater.get.close() }, inTeardown: inRefreshTeardown, go: goRefreshTeardown, log: log))
        // Expired: its teardown waits for nothing but `goExpired`; the root's close waits for it.
        registry.use(
          .cacheable(timeToLive: .seconds(10)) { _ in
            Pool(name: "pool \(pools.next())")
          } teardown: { pool in
            if pool.name == "pool 1" {
              inExpired.raise()
              _ = await goExpired.suspendUntilRaised()
            }
            log.append("\(pool.name) down")
          })
        registry.defineScope(TaskScope.self) { registry in
          // Holds the root's close in the child, before it reaches ann.
          registry.use(
            .cacheable { _ in
              Journal(name: "child")
            } teardown: { _ in
              inChild.raise()
              _ = await goChild.suspendUntilRaised()
              log.append("child down")
            })
        }
      }
    }
    rootLater.set(root)
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let child = try ann.branch(TaskScope.self, context: "task")
    _ = try await child.instance(of: Journal.self)
    _ = try await ann.instance(of: Closer.self)
    _ = try await ann.instance(of: Pool.self)
    clock.advance(by: .seconds(11))
    _ = try await ann.instance(of: Pool.self)  // pool 1's teardown runs in a task, until `goExpired`
    #expect(await inExpired.suspendUntilRaised())
    let refresh = Task { try await ann.refresh(Closer.self) }
    #expect(await inRefreshTeardown.suspendUntilRaised())
    let rootClose = Task {
      try await root.close()
      log.append("root closed")
    }
    #expect(await inChild.suspendUntilRaised())
    goRefreshTeardown.raise()
    // The refresh's teardown closed the root and went on while the root's close is held in the child.
    #expect(await eventually { log.all == ["closed"] })
    #expect(await ends { _ = try await refresh.value })
    goChild.raise()
    #expect(await eventually { ann.closesWaitingForRenewals == 1 })  // for pool 1's teardown
    #expect(!log.all.contains("root closed"))
    goExpired.raise()
    #expect(await ends { try await rootClose.value })
    #expect(log.all == ["closed", "child down", "pool 1 down", "pool 2 down", "root closed"])
    await #expect(throws: FeaturesClosed.self) { try await ann.instance(of: Pool.self) }
  }

  /// A refresh in the root tears down a dependent in ann, then the pool, whose teardown closes ann
  /// while ann's close (started apart) waits for the renewal's teardowns: that close joins ann's
  /// and returns at once, before ann's own teardowns ran; ann's close ends after the renewal's.
  @Test func aRenewalTeardownClosingABranchWhoseCloseWaitsForTheRenewalReturnsAtOnce() async throws {
    let clock = ManualClock()
    let (inJournal, goJournal, inExpired, goExpired) = (Flag(), Flag(), Flag(), Flag())
    let log = Collected<String>()
    let (pools, caches) = (Tally(), Tally())
    let annLater = Later<Features>()
    defer { annLater.clear() }
    let root = FeaturesRoot(clock: clock) { registry in
      // Refreshed: its own teardown, after ann's journal's, closes ann, which another task closes.
      registry.use(
        .cacheable { _ in
          Pool(name: "pool \(pools.next())")
        } teardown: { pool in
          guard pool.name == "pool 1" else { return }
          try await annLater.get.close()
          log.append(log.all.contains("resource down") ? "pool: after ann's close" : "pool: before ann's teardowns")
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            _ = try features.instance(of: Pool.self)
            return Journal(name: "journal")
          } teardown: { _ in
            inJournal.raise()
            _ = await goJournal.suspendUntilRaised()
            log.append("journal down")
          })
        // Expired: the close of ann waits for its teardown, which waits for nothing in the refresh.
        registry.use(
          .cacheable(timeToLive: .seconds(10)) { _ in
            Cache(name: "cache \(caches.next())")
          } teardown: { cache in
            if cache.name == "cache 1" {
              inExpired.raise()
              _ = await goExpired.suspendUntilRaised()
            }
            log.append("\(cache.name) down")
          })
        registry.use(
          .cacheable { _ in
            Resource(name: "ann")
          } teardown: { _ in
            log.append("resource down")
          })
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    annLater.set(ann)
    _ = try await ann.instance(of: Journal.self)
    _ = try await ann.instance(of: Cache.self)
    _ = try await ann.instance(of: Resource.self)
    clock.advance(by: .seconds(11))
    _ = try await ann.instance(of: Cache.self)  // cache 1's teardown runs in a task, until `goExpired`
    #expect(await inExpired.suspendUntilRaised())
    let refresh = Task { try await root.refresh(Pool.self) }
    #expect(await inJournal.suspendUntilRaised())
    let closeAnn = Task { try await ann.close() }
    #expect(await eventually { ann.closesWaitingForRenewals == 1 })
    goJournal.raise()
    // The refresh ends while ann's close still waits for cache 1's teardown.
    #expect(await ends { _ = try await refresh.value })
    #expect(log.all == ["journal down", "pool: before ann's teardowns"])
    goExpired.raise()
    #expect(await ends { try await closeAnn.value })
    #expect(
      log.all == ["journal down", "pool: before ann's teardowns", "cache 1 down", "cache 2 down", "resource down"])
    #expect(try await root.instance(of: Pool.self).name == "pool 2")
    #expect(await ends { try await root.close() })
  }

  /// A resource that says which it is.
  struct Resource: CacheableFeature {
    var name: String
    static var placeholder: Resource { Resource(name: "placeholder") }
  }
}

/// A refresh or a start asked for by a close's teardown is refused at once, so no loop of closes
/// can pass through one: bob's teardown closes ann (and returns at once) while ann's teardown asks
/// for a refresh or a start, or while a refresh holds the turn.
@Suite struct RefreshesAndStartsInCloseTeardownsTests {
  /// Ann's teardown waits for `go`, then runs `annTeardown`; bob's closes ann and logs it.
  func sessions(
    _ registry: inout FeaturesRegistry<SessionScope>, sessions: Lock<[String: Features]>, inAnn: Flag, go: Flag,
    log: Collected<String>, annTeardown: @escaping @Sendable () async throws -> Void
  ) {
    registry.use(
      .cacheable { features in
        Journal(name: try features.context(for: SessionScope.self).user)
      } teardown: {
        journal in
        if journal.name == "ann" {
          inAnn.raise()
          _ = await go.suspendUntilRaised()
          try await annTeardown()
        } else if journal.name == "bob" {
          try await sessions.withLock { $0["ann"]! }.close()
          log.append("bob closed ann")
        }
      })
  }

  @Test func aRefreshInACloseTeardownIsRefusedAndACloseOfThatBranchReturnsAtOnce() async throws {
    let (inAnn, go) = (Flag(), Flag())
    let log = Collected<String>()
    let rootLater = Later<Features>()
    let sessions = Lock<[String: Features]>.make([:])
    defer {
      rootLater.clear()
      sessions.withLock { $0 = [:] }
    }
    let root = FeaturesRoot { registry in
      // Asked for by ann's teardown: its own teardown would close bob.
      registry.use(
        .cacheable { _ in
          Closer(close: { try await sessions.withLock { $0["bob"]! }.close() })
        } teardown: { closer in
          try await closer.close()
          log.append("closed bob")
        })
      registry.defineScope(SessionScope.self) { registry in
        self.sessions(&registry, sessions: sessions, inAnn: inAnn, go: go, log: log) {
          _ = try await rootLater.get.refresh(Closer.self)
          log.append("refreshed")
        }
      }
    }
    rootLater.set(root)
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    sessions.withLock { $0 = ["ann": ann, "bob": bob] }
    _ = try await root.instance(of: Closer.self)
    _ = try await ann.instance(of: Journal.self)
    _ = try await bob.instance(of: Journal.self)
    let closeAnn = Task { try await ann.close() }
    #expect(await inAnn.suspendUntilRaised())
    // Bob's teardown joins ann's close, held in ann's teardown, and returns at once.
    #expect(await ends { try await bob.close() })
    #expect(log.all == ["bob closed ann"])
    go.raise()
    let error = await #expect(throws: TeardownFailed.self) { try await ended { try await closeAnn.value } }
    #expect(error?.failures.map { "\(type(of: $0.cause))" } == ["LifecycleWorkReentered"])
    #expect(log.all == ["bob closed ann"])  // Closer was not renewed
    #expect(await ends { try await root.close() })
    #expect(log.all == ["bob closed ann", "closed bob"])
  }

  @Test func aStartInACloseTeardownIsRefusedAndNothingStarts() async throws {
    let (inAnn, go) = (Flag(), Flag())
    let log = Collected<String>()
    let sessions = Lock<[String: Features]>.make([:])
    defer { sessions.withLock { $0 = [:] } }
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        // Carol's start, asked for by ann's teardown, would close bob.
        registry.beforeServing { features in
          if try features.context(for: SessionScope.self).user == "carol" {
            log.append("carol started")
            try await sessions.withLock { $0["bob"]! }.close()
          }
        }
        self.sessions(&registry, sessions: sessions, inAnn: inAnn, go: go, log: log) {
          _ = try await sessions.withLock { $0["carol"]! }.start()
        }
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    let carol = try root.branch(SessionScope.self, context: Session(user: "carol"))
    sessions.withLock { $0 = ["ann": ann, "bob": bob, "carol": carol] }
    _ = try await ann.instance(of: Journal.self)
    _ = try await bob.instance(of: Journal.self)
    let closeAnn = Task { try await ann.close() }
    #expect(await inAnn.suspendUntilRaised())
    #expect(await ends { try await bob.close() })
    #expect(log.all == ["bob closed ann"])
    go.raise()
    let error = await #expect(throws: TeardownFailed.self) { try await ended { try await closeAnn.value } }
    #expect(error?.failures.map { "\(type(of: $0.cause))" } == ["LifecycleWorkReentered"])
    #expect(log.all == ["bob closed ann"])  // carol did not start
    #expect(await ends { try await carol.start() })  // from outside lifecycle work, it does
    #expect(log.all == ["bob closed ann", "carol started"])
    #expect(await ends { try await root.close() })
  }

  @Test func aRefreshInACloseTeardownIsRefusedWithoutQueueingBehindTheRefreshTurn() async throws {
    let (inFirst, goFirst, inBob) = (Flag(), Flag(), Flag())
    let log = Collected<String>()
    let rootLater = Later<Features>()
    let bobLater = Later<Features>()
    defer {
      rootLater.clear()
      bobLater.clear()
    }
    let root = FeaturesRoot { registry in
      // Holds the turn first, until `goFirst`.
      registry.use(
        .cacheable { _ in
          Resource(name: "first")
        } teardown: { _ in
          inFirst.raise()
          _ = await goFirst.suspendUntilRaised()
        })
      // Refreshed second: its teardown closes bob.
      registry.use(
        .cacheable { _ in
          Closer(close: { try await bobLater.get.close() })
        } teardown: { closer in
          try await closer.close()
          log.append("closed bob")
        })
      registry.use(.cacheable { _ in Pool(name: "asked for by bob's teardown") })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Journal(name: "bob")
          } teardown: { _ in
            inBob.raise()
            _ = try await rootLater.get.refresh(Pool.self)
            log.append("refreshed")
          })
      }
    }
    rootLater.set(root)
    let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
    bobLater.set(bob)
    _ = try await root.instance(of: Resource.self)
    _ = try await root.instance(of: Closer.self)
    _ = try await root.instance(of: Pool.self)
    _ = try await bob.instance(of: Journal.self)
    let first = Task { try await root.refresh(Resource.self) }
    #expect(await inFirst.suspendUntilRaised())
    let second = Task { try await root.refresh(Closer.self) }
    #expect(await eventually { root.refreshesWaitingForTheTurn == 1 })
    // While the first refresh holds the turn, bob's teardown's refresh is refused at once.
    let error = await #expect(throws: TeardownFailed.self) { try await ended { try await bob.close() } }
    #expect(error?.failures.map { "\(type(of: $0.cause))" } == ["LifecycleWorkReentered"])
    #expect(inBob.isRaised)
    #expect(root.refreshesWaitingForTheTurn == 1)
    goFirst.raise()
    #expect(await ends { _ = try await first.value })
    #expect(await ends { _ = try await second.value })
    #expect(log.all == ["closed bob"])  // the second refresh's teardown: bob was closed already
    #expect(await ends { try await root.close() })
  }

  /// A resource that says which it is.
  typealias Resource = RenewalNeverWaitsForItselfTests.Resource
}
