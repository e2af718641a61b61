import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// An async request of a feature whose loader is synchronous runs that loader where it is made, as
/// the synchronous request does: no async call, so a request made on an actor never leaves it, and
/// what it returns, caches or throws is what the synchronous request gives. An async loader still
/// loads asynchronously, once.
@Suite struct SynchronousLoadsInAsyncRequestsTests {
  actor Requester {
    nonisolated let executor = CountingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Loads a cacheable, a multiton's context and a disposable through `branch`, each for the
    /// first time; returns them and the jobs the actor's executor ran meanwhile.
    func load(_ branch: Features) async throws -> (counter: Counter, account: Account, tagged: Tagged, jobs: Int) {
      let before = executor.jobs.load(ordering: .relaxed)
      let counter: Counter = try await branch.instance()
      let account: Account = try await branch.instance(context: 7)
      let tagged: Tagged = try await branch.instance(context: "t")
      return (counter, account, tagged, executor.jobs.load(ordering: .relaxed) - before)
    }
  }

  static func tree(_ loads: Tally) -> Features {
    FeaturesRoot { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(.cacheable { _ in Counter(name: "sync", serial: loads.next()) })
        registry.use(.cacheable { (id: Int, _: Features) in Account(id: id, serial: loads.next()) })
        registry.use(.disposable { (tag: String, _: Features) in Tagged(tag: tag) })
        registry.use(.cacheable { _ async in Other(serial: loads.next()) })
      }
    }
  }

  @Test func firstLoadsRequestedOnAnActorRunThereAndAreCached() async throws {
    let loads = Tally()
    let request = try Self.tree(loads).branch(RequestScope.self, context: 1)
    let loaded = try await Requester().load(request)
    #expect(loaded.jobs == 0)
    #expect(loaded.counter.name == "sync")
    #expect(loaded.account.id == 7)
    #expect(loaded.tagged.tag == "t")
    #expect(loads.value == 2)
    // Cached where the synchronous request finds them.
    #expect(try synchronously { try request.instance(of: Counter.self) }.serial == loaded.counter.serial)
    #expect(try synchronously { try request.instance(of: Account.self, context: 7) }.serial == loaded.account.serial)
    #expect(loads.value == 2)
    try await request.close()
  }

  @Test func anAsyncLoaderBesideThemStillLoadsOnceAsynchronously() async throws {
    let loads = Tally()
    let request = try Self.tree(loads).branch(RequestScope.self, context: 1)
    #expect(throws: FeatureRequiresAwait.self) { try synchronously { try request.instance(of: Other.self) } }
    async let first = request.instance(of: Other.self)
    async let second = request.instance(of: Other.self)
    let (one, two) = try await (first, second)
    #expect(one.serial == two.serial)
    #expect(loads.value == 1)
    #expect(try synchronously { try request.instance(of: Other.self) }.serial == one.serial)
  }

  @Test func anAsyncRequestFailsAsTheSynchronousRequestDoes() async throws {
    let request = try Self.tree(Tally()).branch(RequestScope.self, context: 1)
    let line = #line + 1
    let undefined = await #expect(throws: FeatureUndefined.self) { try await request.instance(of: Profile.self) }
    #expect(
      undefined?.description
        == "FeatureUndefined: no implementation of Profile (ArborTests/SynchronousLoadsInAsyncRequestsTests.swift:\(line))"
    )
    try await request.close()
    let requestLine = #line + 1
    let closed = await #expect(throws: FeaturesClosed.self) { try await request.instance(of: Counter.self) }
    #expect(
      closed?.description
        == "FeaturesClosed: cannot resolve Counter: its branch is closed (ArborTests/SynchronousLoadsInAsyncRequestsTests.swift:\(requestLine))"
    )
  }

  @Test func concurrentFirstAsyncRequestsLoadEachInstanceOnce() async throws {
    let loads = Tally()
    let request = try Self.tree(loads).branch(RequestScope.self, context: 1)
    let serials = try await withThrowingTaskGroup(of: (counter: Int, account: Int).self) { group in
      for _ in 0..<64 {
        group.addTask {
          (
            try await request.instance(of: Counter.self).serial,
            try await request.instance(of: Account.self, context: 3).serial
          )
        }
      }
      return try await group.reduce(into: [(counter: Int, account: Int)]()) { $0.append($1) }
    }
    #expect(Set(serials.map(\.counter)).count == 1)
    #expect(Set(serials.map(\.account)).count == 1)
    #expect(loads.value == 2)
  }

  @Test func anAsyncLoaderWhoseBranchItsRequestersDroppedResolvesSynchronousFeaturesThroughIt() async throws {
    let started = Flag()
    let release = Flag()
    let finished = Flag()
    let seen = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in Profile(user: { (try? features.context(for: SessionScope.self).user) ?? "" }) })
        registry.use(
          .cacheable { features async throws in
            started.raise()
            _ = await release.suspendUntilRaised()
            // Every requester has gone and dropped the branch: the load's own task still holds it,
            // and the synchronous loader runs in it.
            let profile: Profile = try await features.instance()
            seen.append(profile.user())
            finished.raise()
            return Counter(name: profile.user(), serial: 1)
          })
      }
    }
    let session = Lock<Features?>.make(try root.branch(SessionScope.self, context: Session(user: "ann")))
    let requester = Task { try await session.withLock { $0! }.instance(of: Counter.self) }
    #expect(await started.suspendUntilRaised())
    requester.cancel()
    await #expect(throws: CancellationError.self) { try await requester.value }
    session.withLock { $0 = nil }
    release.raise()
    #expect(await finished.suspendUntilRaised())
    #expect(seen.all == ["ann"])
  }
}
