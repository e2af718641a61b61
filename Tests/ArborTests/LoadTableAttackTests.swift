import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Dispatch
import Foundation
import Testing

/// The branch's one load table attacked where it meets threads, tasks, closes and renewals: the
/// contexts of multitons (sync and async), instances that expire, refreshes of one context, and
/// loaders and teardowns that come back to the multiton they load.
///
/// Every wait is bounded at 60 seconds, a gated loader's too: a gate that gave up sooner let a
/// load end, under a loaded sanitizer run, before the test had seen every request reach its wait,
/// and the test then waited for a state that had passed.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LoadTableAttackTests {
  /// Mailboxes per id in the root and, per session, an inbox per id built on the mailbox of that
  /// id; loaded synchronously or with async loaders, mailboxes living `timeToLive` on `clock`.
  static func tree(
    _ ledger: RenewalLedger, async: Bool = false, clock: ManualClock = ManualClock(), timeToLive: Duration? = nil
  ) -> Features {
    FeaturesRoot(clock: clock) { registry in
      if async {
        registry.use(ledger.asyncMultiton(Mailbox.self, timeToLive: timeToLive))
      } else {
        registry.use(ledger.multiton(Mailbox.self, timeToLive: timeToLive))
      }
      registry.defineScope(SessionScope.self) { registry in registry.use(ledger.inboxes(async: async)) }
    }
  }

  // MARK: Exactly once per context

  @Test func threadsRequestingContextsOfASyncMultitonRunItsLoaderOncePerContext() async throws {
    let gated = GatedMailboxes(async: false)
    let (outcomes, ended) = gated.requestOnThreads(12, contexts: 3)
    // Every context's loader runs, and the nine other requests wait for those three loads.
    #expect(await eventually(seconds: 60) { gated.started.count == 3 && gated.root.waits.requestsForLoads == 9 })
    gated.release.raise()
    #expect(await ended.suspendUntilRaised(seconds: 60))
    #expect(outcomes.all.sorted() == (0..<3).flatMap { Array(repeating: "Mailbox(\($0)) 1", count: 4) })
    #expect(gated.started.calls == [0: 1, 1: 1, 2: 1])
    try await gated.root.close()
    #expect(gated.ledger.entries("down ").sorted() == ["down Mailbox(0) 1", "down Mailbox(1) 1", "down Mailbox(2) 1"])
  }

  @Test func tasksRequestingContextsOfAnAsyncMultitonRunItsLoaderOncePerContext() async throws {
    let gated = GatedMailboxes(async: true)
    let requests = gated.requestInTasks(30, contexts: 3)
    // Every request, the three that started a load included, waits for its context's load.
    #expect(await eventually(seconds: 60) { gated.started.count == 3 && gated.root.waits.requestsForLoads == 30 })
    gated.release.raise()
    var outcomes: [String] = []
    for request in requests { outcomes.append(await request.value) }
    #expect(outcomes.sorted() == (0..<3).flatMap { Array(repeating: "Mailbox(\($0)) 1", count: 10) })
    #expect(gated.started.calls == [0: 1, 1: 1, 2: 1])
    try await gated.root.close()
    #expect(gated.ledger.entries("down ").count == 3)
  }

  /// Threads and tasks at once, on many contexts of a multiton in the root and of one in a session
  /// built on it: each context loads once, every requester of it gets that one instance.
  @Test func threadsAndTasksOnManyContextsGetOneInstanceEach() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let contexts = 64
    let seen = Collected<String>()
    let threads = startThreads(4) { thread in
      for id in (0..<contexts).shuffled() {
        do {
          seen.append(try session.instance(of: Inbox.self, context: id).life.name)
          seen.append(try root.instance(of: Mailbox.self, context: (id + thread) % contexts).life.name)
        } catch {
          Issue.record(error)
        }
      }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for id in (0..<contexts).shuffled() {
            seen.append(try await session.instance(of: Inbox.self, context: id).life.name)
            await Task.yield()
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(await threads.suspendUntilRaised(seconds: 20))
    for id in 0..<contexts {
      #expect(ledger.loads("Mailbox(\(id))") == 1)
      #expect(ledger.loads("Inbox@ann(\(id))") == 1)
    }
    #expect(Set(seen.all).count == 2 * contexts)  // every name is serial 1: one instance a context
    #expect(root.invariantViolations() == [])
    try await root.close()
    #expect(ledger.entries("down ").count == 2 * contexts)
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  /// Contexts that are equal values made apart (strings built by each thread): one load per value.
  @Test func equalContextsMadeApartShareOneLoad() async throws {
    let started = Lock<[String: Int]>.make([:])
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (name: String, _: Features) in
          started.withLock { $0[name, default: 0] += 1 }
          usleep(200)
          return Handle(name: name)
        })
    }
    let ended = startThreads(6) { thread in
      for round in 0..<60 {
        let name = String(repeating: "user-", count: 8) + String((round * 7 + thread) % 10)
        #expect((try? root.instance(of: Handle.self, context: name).name) == name)
      }
    }
    #expect(await ended.suspendUntilRaised(seconds: 20))
    #expect(started.withLock { $0.count } == 10)
    #expect(started.withLock { $0.values.allSatisfy { $0 == 1 } })
  }

  // MARK: Failures

  /// Threads (or tasks) waiting for a context whose load fails all get its failure; the failure
  /// is not cached, and the next requests load the context again, once.
  @Test(arguments: [false, true])
  func everyRequestWaitingForAFailingContextGetsTheFailureAndTheNextOnesLoadAgainOnce(async: Bool) async throws {
    let gated = GatedMailboxes(async: async, failingFirst: [7])
    let outcomes: [String]
    if async {
      let requests = gated.requestInTasks(5, contexts: 1, from: 7)
      #expect(await eventually(seconds: 60) { gated.started.count == 1 && gated.root.waits.requestsForLoads == 5 })
      gated.release.raise()
      var ended: [String] = []
      for request in requests { ended.append(await request.value) }
      outcomes = ended
    } else {
      let (received, ended) = gated.requestOnThreads(5, contexts: 1, from: 7)
      #expect(await eventually(seconds: 60) { gated.started.count == 1 && gated.root.waits.requestsForLoads == 4 })
      gated.release.raise()
      #expect(await ended.suspendUntilRaised(seconds: 60))
      outcomes = received.all
    }
    #expect(outcomes == Array(repeating: "Mailbox: boom", count: 5))
    let again = gated.requestInTasks(4, contexts: 1, from: 7)
    for request in again { #expect(await request.value == "Mailbox(7) 1") }
    #expect(gated.started.calls == [7: 2])
    #expect(gated.root.invariantViolations() == [])
    try await gated.root.close()
    #expect(gated.ledger.log.all == ["up Mailbox(7) 1", "down Mailbox(7) 1"])
  }

  // MARK: Closes racing loads

  /// A close that starts while contexts load waits for those loads; their requesters get the
  /// instances, which are then torn down once each; no request starts a load once it closes.
  @Test func aCloseWaitsForTheContextsInFlightAndTearsEachDownOnce() async throws {
    let gated = GatedMailboxes(async: false)
    let (root, ledger) = (gated.root, gated.ledger)
    let (outcomes, ended) = gated.requestOnThreads(9, contexts: 3)
    #expect(await eventually(seconds: 60) { gated.started.count == 3 && root.waits.requestsForLoads == 6 })
    let close = Task { try await root.close() }
    #expect(await eventually(seconds: 60) { root.waits.closesForLoads == 1 })
    // Closing: a request of a context in flight, or of a new one, starts nothing.
    for id in [0, 5] {
      #expect(throws: FeaturesClosed.self) { try root.instance(of: Mailbox.self, context: id) }
      await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Mailbox.self, context: id) }
    }
    gated.release.raise()
    #expect(await ended.suspendUntilRaised(seconds: 60))
    #expect(await ends(within: 10) { try await close.value })
    #expect(outcomes.all.sorted() == (0..<3).flatMap { Array(repeating: "Mailbox(\($0)) 1", count: 3) })
    #expect(ledger.staleReceipts.all.isEmpty)
    #expect(ledger.entries("down ").sorted() == ["down Mailbox(0) 1", "down Mailbox(1) 1", "down Mailbox(2) 1"])
    #expect(gated.started.calls == [0: 1, 1: 1, 2: 1])
    #expect(throws: FeaturesClosed.self) { try root.instance(of: Mailbox.self, context: 0) }
  }

  @Test func aCloseWaitsForAsyncContextsInFlightAndTearsEachDownOnce() async throws {
    let gated = GatedMailboxes(async: true)
    let (root, ledger) = (gated.root, gated.ledger)
    let requests = gated.requestInTasks(6, contexts: 2)
    #expect(await eventually(seconds: 60) { gated.started.count == 2 && root.waits.requestsForLoads == 6 })
    let close = Task { try await root.close() }
    #expect(await eventually(seconds: 60) { root.waits.closesForLoads == 1 })
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Mailbox.self, context: 0) }
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Mailbox.self, context: 9) }
    gated.release.raise()
    var outcomes: [String] = []
    for request in requests { outcomes.append(await request.value) }
    #expect(await ends(within: 10) { try await close.value })
    #expect(outcomes.sorted() == (0..<2).flatMap { Array(repeating: "Mailbox(\($0)) 1", count: 3) })
    #expect(ledger.entries("down ").sorted() == ["down Mailbox(0) 1", "down Mailbox(1) 1"])
    #expect(ledger.staleReceipts.all.isEmpty)
  }

  /// A close that starts while a context's load is about to fail waits for it: the failure reaches
  /// the waiting requests, and the close tears down only the context that loaded.
  @Test func aCloseWaitingForAContextThatFailsTearsDownOnlyTheOthers() async throws {
    let gated = GatedMailboxes(async: false, failingFirst: [1])
    let root = gated.root
    let (outcomes, ended) = gated.requestOnThreads(4, contexts: 2)
    #expect(await eventually(seconds: 60) { gated.started.count == 2 && root.waits.requestsForLoads == 2 })
    let close = Task { try await root.close() }
    #expect(await eventually(seconds: 60) { root.waits.closesForLoads == 1 })
    gated.release.raise()
    #expect(await ended.suspendUntilRaised(seconds: 60))
    #expect(await ends(within: 10) { try await close.value })
    #expect(outcomes.all.sorted() == ["Mailbox(0) 1", "Mailbox(0) 1", "Mailbox: boom", "Mailbox: boom"])
    #expect(gated.ledger.log.all == ["up Mailbox(0) 1", "down Mailbox(0) 1"])
    #expect(gated.started.calls == [0: 1, 1: 1])
  }

  /// Tasks hammering contexts of a root multiton and of a session multiton built on it while the
  /// root closes: every instance loaded is torn down exactly once, no request receives one whose
  /// teardown started before it began, and every request refused is refused by the close.
  @Test(arguments: [false, true])
  func tasksHammeringContextsWhileTheRootClosesLeaveNothingBehind(async: Bool) async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger, async: async)
    let sessions = try ["ann", "bob"].map { try root.branch(SessionScope.self, context: Session(user: $0)) }
    let requests = Tally()
    let refused = Tally()
    let unexpected = Collected<String>()
    let request: @Sendable (Int) async -> Void = { index in
      do {
        if index % 3 == 0 {
          _ = try await ledger.receive { try await root.instance(of: Mailbox.self, context: index % 16) }
        } else {
          _ = try await ledger.receive {
            try await sessions[index % 2].instance(of: Inbox.self, context: index % 16)
          }
        }
        requests.next()
      } catch {
        if isRefusedByTheClose(error) { refused.next() } else { unexpected.append("\(error)") }
      }
    }
    let stop = Flag()
    let workers = (0..<6).map { worker in
      Task {
        var index = worker
        while !stop.isRaised {
          index += 7
          await request(index)
          if refused.value > 20 { return }
          await Task.yield()
        }
      }
    }
    #expect(await eventually(seconds: 60) { requests.value > 200 })
    #expect(await ends(within: 20) { try await root.close() })
    #expect(await eventually(seconds: 60) { refused.value > 20 })
    stop.raise()
    for worker in workers { await worker.value }
    #expect(unexpected.all.isEmpty)
    #expect(ledger.staleReceipts.all.isEmpty, "received after their teardown started: \(ledger.staleReceipts.all)")
    #expect(ledger.doubleTeardowns.all.isEmpty)
    let ups = ledger.entries("up ").map { String($0.dropFirst(3)) }
    let downs = ledger.entries("down ").map { String($0.dropFirst(5)) }
    #expect(ups.sorted() == downs.sorted())
    #expect(Set(ups).count == ups.count)  // no context loaded twice
  }

  /// An async loader of one context closes its own branch while another context loads: inside a
  /// loader, the close returns at once, both loads end and are cached, and the close, which goes
  /// on, tears them down once each.
  @Test func anAsyncLoaderClosingItsBranchWhileOtherContextsLoadReturnsAtOnce() async throws {
    let ledger = RenewalLedger()
    let started = Started()
    let closing = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        ledger.asyncMultiton(Mailbox.self) { id, features in
          started.note(id)
          if id == 1 {
            _ = await eventually(seconds: 60) { started.count == 2 }
            try await features.close()
            closing.raise()
          } else {
            _ = await closing.suspendUntilRaised(seconds: 60)
          }
        })
    }
    let first = Task { try await root.instance(of: Mailbox.self, context: 1) }
    let second = Task { try await root.instance(of: Mailbox.self, context: 2) }
    #expect(await ends(within: 10) { _ = try await first.value })
    #expect(await ends(within: 10) { _ = try await second.value })
    #expect(await ends(within: 10) { try await root.close() })
    #expect(ledger.entries("down ").sorted() == ["down Mailbox(1) 1", "down Mailbox(2) 1"])
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Mailbox.self, context: 3) }
  }

  // MARK: A loader that comes back to its multiton

  /// A loader of a context that requests lower contexts of the same multiton, from many threads at
  /// once: every chain ends, each context loads once, and no wait is taken for a cycle.
  @Test func loadersRequestingOtherContextsOfTheirMultitonFromManyThreadsLoadEachOnce() async throws {
    let started = Started()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (level: Int, features: Features) in
          started.note(level)
          usleep(100)
          return Account(
            id: level, serial: level == 0 ? 0 : try features.instance(of: Account.self, context: level - 1).serial + 1)
        })
    }
    let ended = startThreads(8) { thread in
      for level in stride(from: 40 - thread, through: 0, by: -5) {
        do {
          #expect(try root.instance(of: Account.self, context: level).serial == level)
        } catch {
          Issue.record(error)
        }
      }
    }
    #expect(await ended.suspendUntilRaised(seconds: 20))
    #expect(started.calls == Dictionary(uniqueKeysWithValues: (0...40).map { ($0, 1) }))
  }

  /// The diagnostic of Account's loader requesting its own context, at line 2, for a request at
  /// line 1.
  private func expectSelfCycle(_ error: CircularDependency?, sourceLocation: Testing.SourceLocation = #_sourceLocation)
  {
    let file = "ArborTests/LoadTableAttackTests.swift"
    #expect(error?.path.map { String(describing: $0) } == ["Account", "Account"], sourceLocation: sourceLocation)
    #expect(
      error.map { String(describing: $0) } == "CircularDependency: Account requires itself (\(file):2)",
      sourceLocation: sourceLocation)
    #expect(
      error.map { String(reflecting: $0) } == """
        CircularDependency: Account requires itself
        ├─ requested at: \(file):2
        ├─ scope: Root
        ├─ path: Account → Account
        ├─ requests: Account at \(file):1
        │            Account at \(file):2
        └─ fix: Account's loader must not request Account; build it from other features
        """, sourceLocation: sourceLocation)
  }

  @Test func aLoaderRequestingItsOwnContextFailsWithTheCycleAndTheNextRequestTriesAgain() throws {
    let tries = Tally()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, features: Features) in
          if tries.next() == 1 { _ = try features.instance(of: Account.self, context: id, line: 2) }
          return Account(id: id, serial: tries.value)
        })
    }
    let error = #expect(throws: CircularDependency.self) {
      try root.instance(of: Account.self, context: 3, line: 1)
    }
    expectSelfCycle(error)
    #expect(try root.instance(of: Account.self, context: 3).serial == 2)
  }

  @Test func anAsyncLoaderRequestingItsOwnContextFailsWithTheCycle() async throws {
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, features: Features) async throws -> Account in
          _ = try await features.instance(of: Account.self, context: id, line: 2)
          return Account(id: id, serial: 0)
        })
    }
    let error = await #expect(throws: CircularDependency.self) {
      try await root.instance(of: Account.self, context: 3, line: 1)
    }
    expectSelfCycle(error)
  }

  /// Two threads, each loading a context whose loader requests the other's: a cycle across threads,
  /// which fails both requests instead of hanging them; neither failure is cached.
  @Test func twoContextsRequestingEachOtherFromTwoThreadsFailBothInsteadOfDeadlocking() async throws {
    let started = Started()
    let cyclesEnded = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, features: Features) in
          started.note(id)
          if !cyclesEnded.isRaised {
            // Both loads are in flight before either requests the other.
            _ = blockUntil(seconds: 60) { started.count == 2 }
            _ = try features.instance(of: Account.self, context: 3 - id)
          }
          return Account(id: id, serial: started.calls[id] ?? 0)
        })
    }
    let outcomes = Collected<String>()
    let ended = startThreads(2) { thread in
      do {
        _ = try root.instance(of: Account.self, context: thread + 1)
        outcomes.append("instance")
      } catch let cycle as CircularDependency {
        outcomes.append("cycle \(cycle.path.count)")
      } catch {
        outcomes.append("\(error)")
      }
    }
    #expect(await ended.suspendUntilRaised(seconds: 60))
    #expect(outcomes.all == ["cycle 3", "cycle 3"])
    cyclesEnded.raise()
    try synchronously { () throws in
      #expect(try root.instance(of: Account.self, context: 1).serial == 2)
      #expect(try root.instance(of: Account.self, context: 2).serial == 2)
    }
    #expect(root.invariantViolations() == [])
  }

  @Test func twoAsyncContextsRequestingEachOtherFailBothInsteadOfDeadlocking() async throws {
    let started = Started()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable { (id: Int, features: Features) async throws -> Account in
          started.note(id)
          _ = await eventually(seconds: 60) { started.count == 2 }
          _ = try await features.instance(of: Account.self, context: 3 - id)
          return Account(id: id, serial: 0)
        })
    }
    let first = Task { try await root.instance(of: Account.self, context: 1) }
    let second = Task { try await root.instance(of: Account.self, context: 2) }
    #expect(
      await ends(within: 10) {
        await #expect(throws: CircularDependency.self) { try await first.value }
        await #expect(throws: CircularDependency.self) { try await second.value }
      })
  }

  // MARK: Renewal racing requests and closes

  /// Tasks refresh contexts of a root multiton while threads request them, other contexts, and the
  /// session multiton built on them: no request receives an instance whose teardown had started,
  /// each renewal loads each renewed context once, and contexts never refreshed load once.
  @Test func refreshesOfContextsRacingRequestsRenewEachOnceAndNeverHandOutATornDownInstance() async throws {
    let ledger = RenewalLedger()
    let root = Self.tree(ledger)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let rounds = runsUnderThreadSanitizer ? 30 : 100
    let requests = Tally()
    let refreshed = Tally()
    let refreshing = Task {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for refresher in 0..<2 {
          group.addTask {
            for round in 0..<rounds {
              let seen = requests.value
              while requests.value < seen + 4 { await Task.yield() }
              _ = try await root.refresh(Mailbox.self, context: (round + refresher) % 3)
              refreshed.next()
            }
          }
        }
        try await group.waitForAll()
      }
    }
    let threads = startThreads(4) { thread in
      var index = thread
      let deadline = DispatchTime.now().uptimeNanoseconds + 30_000_000_000
      while refreshed.value < 2 * rounds, DispatchTime.now().uptimeNanoseconds < deadline {
        index += 1
        do {
          if index % 2 == 0 {
            _ = try ledger.receive { try root.instance(of: Mailbox.self, context: index % 5) }
          } else {
            _ = try ledger.receive { try session.instance(of: Inbox.self, context: index % 5) }
          }
          requests.next()
        } catch {
          Issue.record(error)
        }
      }
    }
    #expect(await threads.suspendUntilRaised(seconds: 40))
    #expect(await ends(within: 10) { try await refreshing.value })
    for id in 0..<5 { _ = try synchronously { try session.instance(of: Inbox.self, context: id) } }
    #expect(ledger.staleReceipts.all.isEmpty, "received after their teardown started: \(ledger.staleReceipts.all)")
    #expect(ledger.doubleTeardowns.all.isEmpty)
    for id in 0..<5 {
      for label in ["Mailbox(\(id))", "Inbox@ann(\(id))"] {
        let renewals = ledger.entries("down \(label) ").count
        #expect(ledger.loads(label) == renewals + 1, "\(label): \(ledger.loads(label)) loads, \(renewals) renewals")
      }
    }
    #expect(ledger.loads("Mailbox(3)") == 1)
    #expect(ledger.loads("Mailbox(4)") == 1)
    #expect(root.invariantViolations() == [])
    try await root.close()
    #expect(ledger.entries("down ").count == ledger.entries("up ").count)
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  /// Once refreshed, a context's instances are held under the branch's lock: threads requesting it
  /// at once still run its loader once, and all get that instance.
  @Test func threadsRequestingARefreshedContextLoadItOnce() async throws {
    let ledger = RenewalLedger()
    let started = Started()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        ledger.multiton(Mailbox.self) { id, _ in
          if started.note(id) == 2 { _ = release.wait(seconds: 60) }
        })
    }
    _ = try synchronously { try root.instance(of: Mailbox.self, context: 1) }
    #expect(try await root.refresh(Mailbox.self, context: 1).count == 1)
    let names = Collected<String>()
    let ended = startThreads(8) { _ in
      names.append(GatedMailboxes.outcome { try ledger.receive { try root.instance(of: Mailbox.self, context: 1) } })
    }
    #expect(await eventually(seconds: 60) { started.calls[1] == 2 && root.waits.requestsForLoads == 7 })
    release.raise()
    #expect(await ended.suspendUntilRaised(seconds: 60))
    #expect(names.all == Array(repeating: "Mailbox(1) 2", count: 8))
    #expect(started.calls == [1: 2])
    #expect(ledger.staleReceipts.all.isEmpty)
    try await root.close()
    #expect(ledger.entries("down ") == ["down Mailbox(1) 1", "down Mailbox(1) 2"])
  }

  /// A close that starts while a refresh of a context tears its instance down waits for that
  /// teardown; the refresh renews it once, the close tears down the rest once, and a refresh after
  /// the close is refused.
  @Test func aCloseStartedDuringARefreshOfAContextWaitsForItAndTearsEachInstanceDownOnce() async throws {
    let ledger = RenewalLedger()
    let tearingDown = Flag()
    let gate = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { (id: Int, features: Features) in
          ledger.make(Mailbox.self, context: id, in: features)
        } teardown: { mailbox in
          if mailbox.life.name == "Mailbox(1) 1" {
            tearingDown.raise()
            _ = await gate.suspendUntilRaised(seconds: 60)
          }
          try ledger.tearDown(mailbox)
        })
    }
    try synchronously { for id in 0..<3 { _ = try root.instance(of: Mailbox.self, context: id) } }
    let refresh = Task { try await root.refresh(Mailbox.self, context: 1) }
    #expect(await tearingDown.suspendUntilRaised(seconds: 60))
    // The renewal let go of the context: a request now loads the next instance.
    #expect(try synchronously { try root.instance(of: Mailbox.self, context: 1) }.serial == 2)
    let close = Task { try await root.close() }
    #expect(await eventually(seconds: 60) { root.closesWaitingForRenewals == 1 })
    await #expect(throws: FeaturesClosed.self) { try await root.refresh(Mailbox.self, context: 2) }
    #expect(throws: FeaturesClosed.self) { try root.instance(of: Mailbox.self, context: 1) }
    gate.raise()
    let renewed = try await refresh.value
    #expect(renewed.map(\.description) == ["Mailbox for 1 (Mailbox.live()) in Root"])
    #expect(await ends(within: 10) { try await close.value })
    #expect(
      ledger.entries("down ").sorted() == [
        "down Mailbox(0) 1", "down Mailbox(1) 1", "down Mailbox(1) 2", "down Mailbox(2) 1",
      ])
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  /// Refreshes of one context and requests of it racing a close of the tree, many times over: the
  /// close ends, every instance loaded is torn down once, by the refresh or by the close.
  @Test func refreshesAndRequestsOfAContextRacingACloseTearEachInstanceDownOnce() async throws {
    for _ in 0..<(runsUnderThreadSanitizer ? 5 : 20) {
      let ledger = RenewalLedger()
      let root = Self.tree(ledger)
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let unexpected = Collected<String>()
      let refreshes = (0..<2).map { _ in
        Task {
          for _ in 0..<20 {
            do {
              _ = try await root.refresh(Mailbox.self, context: 1)
            } catch is FeaturesClosed {
              return
            } catch {
              unexpected.append("refresh: \(error)")
            }
            await Task.yield()
          }
        }
      }
      let requests = (0..<3).map { index in
        Task {
          for _ in 0..<40 {
            do {
              _ = try await ledger.receive { try await session.instance(of: Inbox.self, context: 1 + index % 2) }
            } catch {
              guard isRefusedByTheClose(error) else {
                unexpected.append("request: \(error)")
                continue
              }
              return
            }
            await Task.yield()
          }
        }
      }
      for _ in 0..<20 { await Task.yield() }
      #expect(await ends(within: 10) { try await root.close() })
      for task in refreshes + requests { await task.value }
      #expect(unexpected.all.isEmpty)
      #expect(ledger.staleReceipts.all.isEmpty)
      #expect(ledger.doubleTeardowns.all.isEmpty)
      let ups = ledger.entries("up ").map { String($0.dropFirst(3)) }
      let downs = ledger.entries("down ").map { String($0.dropFirst(5)) }
      #expect(ups.sorted() == downs.sorted())
    }
  }

  /// Contexts of a multiton that live a minute, requested from many threads (or tasks, of async
  /// loaders) at once once they are that old: each is loaded again once, its old instance and those
  /// built on it torn down once, and no request receives an instance whose teardown started.
  @Test(arguments: [false, true])
  func expiredContextsRequestedAtOnceAreRenewedOnceEach(async: Bool) async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let root = Self.tree(ledger, async: async, clock: clock, timeToLive: .seconds(60))
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    for id in 0..<3 { _ = try await session.instance(of: Inbox.self, context: id) }
    clock.advance(by: .seconds(60))
    let go = Flag()
    let names = Collected<String>()
    if async {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<12 {
          group.addTask {
            _ = await go.suspendUntilRaised(seconds: 60)
            let id = index % 3
            names.append(
              index % 2 == 0
                ? try await ledger.receive { try await root.instance(of: Mailbox.self, context: id) }.life.name
                : try await ledger.receive { try await session.instance(of: Inbox.self, context: id) }.life.name)
          }
        }
        go.raise()
        try await group.waitForAll()
      }
    } else {
      let ended = startThreads(12) { index in
        _ = go.wait(seconds: 60)
        let id = index % 3
        do {
          names.append(
            index % 2 == 0
              ? try ledger.receive { try root.instance(of: Mailbox.self, context: id) }.life.name
              : try ledger.receive { try session.instance(of: Inbox.self, context: id) }.life.name)
        } catch {
          Issue.record(error)
        }
      }
      go.raise()
      #expect(await ended.suspendUntilRaised(seconds: 60))
    }
    let downs = try await first(6, of: ledger.teardowns, seconds: 60)
    #expect(
      downs.sorted() == (0..<3).flatMap { ["down Inbox@ann(\($0)) 1", "down Mailbox(\($0)) 1"] }.sorted())
    #expect(Set(names.all.filter { $0.hasPrefix("Mailbox") }) == ["Mailbox(0) 2", "Mailbox(1) 2", "Mailbox(2) 2"])
    for id in 0..<3 {
      #expect(ledger.loads("Mailbox(\(id))") == 2)
      #expect(try await session.instance(of: Inbox.self, context: id).serial == 2)
    }
    #expect(ledger.staleReceipts.all.isEmpty)
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
    #expect(ledger.entries("down ").count == 12)
  }

  // MARK: Cancelled requests

  @Test func aRequestCancelledWhileWaitingForAContextEndsAndTheLoadGoesOnForTheOthers() async throws {
    let gated = GatedMailboxes(async: true)
    let (root, ledger, started, release) = (gated.root, gated.ledger, gated.started, gated.release)
    // The first request started the load; cancelling it, or one that joined, ends that request only.
    let owner = Task { try await root.instance(of: Mailbox.self, context: 1) }
    #expect(await eventually(seconds: 60) { started.count == 1 })
    let joined = Task { try await root.instance(of: Mailbox.self, context: 1) }
    let kept = Task { try await root.instance(of: Mailbox.self, context: 1) }
    #expect(await eventually(seconds: 60) { root.waits.requestsForLoads == 3 })
    owner.cancel()
    joined.cancel()
    await #expect(throws: CancellationError.self) { try await owner.value }
    await #expect(throws: CancellationError.self) { try await joined.value }
    #expect(root.waits.requestsForLoads == 1)
    release.raise()
    #expect(try await kept.value.life.name == "Mailbox(1) 1")
    #expect(try await root.instance(of: Mailbox.self, context: 1).life.name == "Mailbox(1) 1")
    #expect(started.calls == [1: 1])
    try await root.close()
    #expect(ledger.entries("down ") == ["down Mailbox(1) 1"])
  }

  /// Every request of a context cancelled while it loads: the load still ends, is cached, and a
  /// close started meanwhile waits for it and tears it down.
  @Test func aLoadWhoseRequestsWereAllCancelledIsCachedAndTornDownByTheClose() async throws {
    let gated = GatedMailboxes(async: true)
    let (root, ledger, release) = (gated.root, gated.ledger, gated.release)
    let requests = (0..<3).map { _ in Task { try await root.instance(of: Mailbox.self, context: 4) } }
    #expect(await eventually(seconds: 60) { root.waits.requestsForLoads == 3 })
    for request in requests { request.cancel() }
    for request in requests { await #expect(throws: CancellationError.self) { try await request.value } }
    let close = Task { try await root.close() }
    #expect(await eventually(seconds: 60) { root.waits.closesForLoads == 1 })
    release.raise()
    #expect(await ends(within: 10) { try await close.value })
    #expect(ledger.log.all == ["up Mailbox(4) 1", "down Mailbox(4) 1"])
  }

  // MARK: Deadlock hunting

  /// Lock order is the branch's lock, then a multiton's, everywhere: threads loading new contexts
  /// (which grow the multiton's table), refreshes retiring contexts, requests of retired contexts
  /// (held under the branch's lock) and invariant checks (the multiton's lock alone) never block
  /// each other for good.
  @Test func loadsRefreshesAndChecksOfOneMultitonNeverDeadlock() async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in registry.use(ledger.multiton(Mailbox.self)) }
    let stop = Flag()
    let threads = startThreads(3) { thread in
      var id = thread
      while !stop.isRaised {
        id += 3
        _ = try? root.instance(of: Mailbox.self, context: id % 400)
        if thread == 0 { _ = root.invariantViolations(quiescent: false) }
      }
    }
    #expect(
      await ends(within: 20) {
        for round in 0..<(runsUnderThreadSanitizer ? 40 : 200) {
          _ = try await root.refresh(Mailbox.self, context: round % 50)
          _ = try await root.instance(of: Mailbox.self, context: round % 50)
        }
      })
    stop.raise()
    #expect(await threads.suspendUntilRaised(seconds: 60))
    #expect(root.invariantViolations() == [])
    #expect(await ends(within: 10) { try await root.close() })
    #expect(ledger.doubleTeardowns.all.isEmpty)
    #expect(ledger.entries("down ").count == ledger.entries("up ").count)
  }

  /// A close's teardown of a context requests that context, another one, and refreshes it: each is
  /// refused (the requests as the branch is closed, the refresh as lifecycle work), and the close
  /// ends having torn every instance down once.
  @Test func aClosesTeardownThatComesBackToItsMultitonIsRefusedAndTheCloseEnds() async throws {
    let ledger = RenewalLedger()
    let later = Later<Features>()
    defer { later.clear() }  // the tree's teardowns reach it: let go, or it keeps the tree
    let refusals = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { (id: Int, features: Features) in
          ledger.make(Mailbox.self, context: id, in: features)
        } teardown: { mailbox in
          try ledger.tearDown(mailbox)
          guard mailbox.life.name == "Mailbox(1) 1" else { return }
          let features = later.get
          for attempt in 0..<4 {
            do {
              switch attempt {
              case 0: _ = try synchronously { try features.instance(of: Mailbox.self, context: 1) }
              case 1: _ = try await features.instance(of: Mailbox.self, context: 2)
              case 2: _ = try await features.instance(of: Mailbox.self, context: 3)
              default: _ = try await features.refresh(Mailbox.self, context: 2)
              }
              refusals.append("\(attempt): served")
            } catch {
              refusals.append("\(attempt): \(type(of: error))")
            }
          }
        })
    }
    later.set(root)
    try synchronously { for id in 1...2 { _ = try root.instance(of: Mailbox.self, context: id) } }
    #expect(await ends(within: 10) { try await root.close() })
    #expect(
      refusals.all == ["0: FeaturesClosed", "1: FeaturesClosed", "2: FeaturesClosed", "3: LifecycleWorkReentered"])
    #expect(ledger.log.all == ["up Mailbox(1) 1", "up Mailbox(2) 1", "down Mailbox(2) 1", "down Mailbox(1) 1"])
  }

  /// A refresh's teardown of a context requests that context (and so loads its next instance), and
  /// refreshes it again: the request is served, the refresh is refused at once, and the outer
  /// refresh fails with that teardown's failure; every instance is torn down once.
  @Test func aTeardownThatRequestsTheContextItTearsDownIsServedAndItsRefreshIsRefused() async throws {
    let ledger = RenewalLedger()
    let later = Later<Features>()
    defer { later.clear() }  // the tree's teardowns reach it: let go, or it keeps the tree
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { (id: Int, features: Features) in
          ledger.make(Mailbox.self, context: id, in: features)
        } teardown: { mailbox in
          try ledger.tearDown(mailbox)
          guard mailbox.life.name == "Mailbox(1) 1" else { return }
          _ = try await later.get.instance(of: Mailbox.self, context: 1)
          _ = try await later.get.refresh(Mailbox.self, context: 1)
        })
    }
    later.set(root)
    _ = try synchronously { try root.instance(of: Mailbox.self, context: 1) }
    let error = await #expect(throws: TeardownFailed.self) {
      try await ended(within: 10) { try await root.refresh(Mailbox.self, context: 1) }
    }
    #expect(error?.failures.first?.cause is LifecycleWorkReentered)
    #expect(ledger.entries("down ") == ["down Mailbox(1) 1"])
    // The instance the teardown's request loaded is the one served now.
    #expect(try synchronously { try root.instance(of: Mailbox.self, context: 1) }.serial == 2)
    #expect(await ends(within: 10) { try await root.close() })
    #expect(ledger.entries("down ") == ["down Mailbox(1) 1", "down Mailbox(1) 2"])
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  /// An async loader of a context that refreshes another context of its own multiton: the refresh is refused at once, its load fails with that cause, and nothing is renewed.
  @Test func anAsyncLoaderRefreshingItsOwnMultitonFailsItsLoad() async throws {
    let ledger = RenewalLedger()
    let root = FeaturesRoot { registry in
      registry.use(
        ledger.asyncMultiton(Mailbox.self) { id, features in
          guard id == 1 else { return }
          _ = try await features.refresh(Mailbox.self, context: 2)
        })
    }
    _ = try await root.instance(of: Mailbox.self, context: 2)
    let error = await #expect(throws: FeatureLoadingFailed.self) {
      try await ended(within: 10) { try await root.instance(of: Mailbox.self, context: 1) }
    }
    #expect(
      (error?.cause as? LifecycleWorkReentered)?.diagnostic.message
        == "refresh(Mailbox) cannot run inside the loader of Mailbox")
    #expect(ledger.entries("down ") == [])
    #expect(try await root.instance(of: Mailbox.self, context: 2).serial == 1)
    #expect(ledger.loads("Mailbox(1)") == 0)
    #expect(await ends(within: 10) { try await root.close() })
    #expect(ledger.entries("down ") == ["down Mailbox(2) 1"])
  }

  /// An async loader of one context refreshes another while the load of a third context waits for
  /// the first: the refresh is refused at once, and both loads fail with it, none waiting.
  @Test func anAsyncLoaderRefreshingWhileAnotherContextsLoadWaitsForItFailsBoth() async throws {
    let ledger = RenewalLedger()
    let started = Started()
    let gate = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        ledger.asyncMultiton(Mailbox.self) { id, features in
          started.note(id)
          switch id {
          case 1:
            _ = await gate.suspendUntilRaised(seconds: 60)
            _ = try await features.refresh(Mailbox.self, context: 3)
          case 2:
            _ = try await features.instance(of: Mailbox.self, context: 1)
          default:
            break
          }
        })
    }
    _ = try await root.instance(of: Mailbox.self, context: 3)
    let first = Task { _ = try await root.instance(of: Mailbox.self, context: 1) }
    #expect(await eventually(seconds: 60) { started.calls[1] == 1 })
    let second = Task { _ = try await root.instance(of: Mailbox.self, context: 2) }
    // The second context's load waits for the first's, with the first's own request.
    await expectBothFail(first, second, once: gate, in: ledger, root: root)
    #expect(try await root.instance(of: Mailbox.self, context: 3).serial == 1)  // never renewed
    #expect(await ends(within: 10) { try await root.close() })
  }

  /// The same with cacheables without a context: Credential's loader refreshes Settings while
  /// ApiClient's load waits for Credential's. The refresh is refused, and both loads fail with it.
  @Test func anAsyncLoaderRefreshingWhileALoadWaitsForItFailsBoth() async throws {
    let ledger = RenewalLedger()
    let credentialStarted = Flag()
    let gate = Flag()
    let root = FeaturesRoot { registry in
      registry.use(ledger.asyncCacheable(Settings.self))
      registry.use(
        ledger.asyncCacheable(Credential.self) { features in
          credentialStarted.raise()
          _ = await gate.suspendUntilRaised(seconds: 60)
          _ = try await features.refresh(Settings.self)
        })
      registry.use(
        ledger.asyncCacheable(ApiClient.self) { features in
          _ = try await features.instance(of: Credential.self)
        })
    }
    _ = try await root.instance(of: Settings.self)
    let credential = Task { _ = try await root.instance(of: Credential.self) }
    #expect(await eventually(seconds: 60) { credentialStarted.isRaised })
    let client = Task { _ = try await root.instance(of: ApiClient.self) }
    // ApiClient's load waits for Credential's, with Credential's own request.
    await expectBothFail(credential, client, once: gate, in: ledger, root: root)
    #expect(try await root.instance(of: Settings.self).serial == 1)  // never renewed
    #expect(await ends(within: 10) { try await root.close() })
  }

  /// Once `waiting` waits for `refreshing`'s load, raises `gate`, which lets that load refresh:
  /// the refresh is refused, both loads fail with it (the waiting one through the other's failure),
  /// and nothing was torn down.
  private func expectBothFail(
    _ refreshing: Task<Void, any Error>, _ waiting: Task<Void, any Error>, once gate: Flag,
    in ledger: RenewalLedger, root: Features
  ) async {
    // Two requests wait for the refreshing load (its own, and the waiting load's), one for the other.
    #expect(await eventually(seconds: 60) { root.waits.requestsForLoads == 3 })
    gate.raise()
    let refused = await #expect(throws: FeatureLoadingFailed.self) {
      try await ended(within: 10) { try await refreshing.value }
    }
    #expect(refused?.cause is LifecycleWorkReentered)
    let failed = await #expect(throws: FeatureLoadingFailed.self) {
      try await ended(within: 10) { try await waiting.value }
    }
    #expect(Self.rootCause(of: failed) is LifecycleWorkReentered)
    #expect(ledger.entries("down ") == [])
  }

  /// The innermost cause of a chain of load failures.
  private static func rootCause(of error: (any Error)?) -> (any Error)? {
    guard let failed = error as? FeatureLoadingFailed else { return error }
    return rootCause(of: failed.cause)
  }
}

/// Whether `error` is what a request racing a close may get: `FeaturesClosed`, or the failure of a
/// load that started before the close and requested something after it.
private func isRefusedByTheClose(_ error: any Error) -> Bool {
  error is FeaturesClosed || (error as? FeatureLoadingFailed).map { isRefusedByTheClose($0.cause) } == true
}

/// Mailboxes per id in a root whose loader (synchronous or async) notes each call, then waits until
/// `release` rises; the first load of an id in `failingFirst` then throws `Boom`.
private struct GatedMailboxes {
  let ledger: RenewalLedger
  let started: Started
  let release: Flag
  let root: Features

  init(async: Bool, failingFirst: Set<Int> = []) {
    let (ledger, started, release) = (RenewalLedger(), Started(), Flag())
    (self.ledger, self.started, self.release) = (ledger, started, release)
    root = FeaturesRoot { registry in
      if async {
        registry.use(
          ledger.asyncMultiton(Mailbox.self) { id, _ in
            let call = started.note(id)
            _ = await release.suspendUntilRaised(seconds: 60)
            if call == 1, failingFirst.contains(id) { throw Boom() }
          })
      } else {
        registry.use(
          ledger.multiton(Mailbox.self) { id, _ in
            let call = started.note(id)
            _ = release.wait(seconds: 60)
            if call == 1, failingFirst.contains(id) { throw Boom() }
          })
      }
    }
  }

  /// Requests context `first + index % contexts` on `count` threads of their own, without waiting:
  /// what each request ended with (see ``outcome(_:)``), and a flag raised once all ended.
  func requestOnThreads(_ count: Int, contexts: Int, from first: Int = 0) -> (Collected<String>, Flag) {
    let outcomes = Collected<String>()
    let (ledger, root) = (ledger, root)
    let ended = startThreads(count) { index in
      outcomes.append(
        Self.outcome { try ledger.receive { try root.instance(of: Mailbox.self, context: first + index % contexts) } })
    }
    return (outcomes, ended)
  }

  /// Requests context `first + index % contexts` in `count` tasks: what each ended with.
  func requestInTasks(_ count: Int, contexts: Int, from first: Int = 0) -> [Task<String, Never>] {
    let (ledger, root) = (ledger, root)
    return (0..<count).map { index in
      Task {
        do {
          return try await ledger.receive {
            try await root.instance(of: Mailbox.self, context: first + index % contexts)
          }.life.name
        } catch {
          return Self.outcome { throw error }
        }
      }
    }
  }

  /// `Mailbox(1) 1` for an instance, `Mailbox: boom` for a failed load, the error otherwise.
  static func outcome(_ request: () throws -> Mailbox) -> String {
    do {
      return try request().life.name
    } catch let error as FeatureLoadingFailed {
      return "\(error.feature): \(error.cause)"
    } catch {
      return "\(error)"
    }
  }
}

/// A multiton by name.
private struct Handle: CacheableFeature {
  typealias Context = String
  var name: String
  static var placeholder: Handle { Handle(name: "") }
}

/// Which contexts' loaders started, and how often.
private final class Started: Sendable {
  private let counts = Lock<[Int: Int]>.make([:])

  /// Notes a loader call for `id`; how many there were for it, this one included.
  @discardableResult func note(_ id: Int) -> Int {
    counts.withLock { counts in
      counts[id, default: 0] += 1
      return counts[id]!
    }
  }

  /// Loader calls by context.
  var calls: [Int: Int] { counts.withLock { $0 } }

  /// How many contexts' loaders started.
  var count: Int { counts.withLock { $0.count } }
}

/// Runs `body` on `count` threads of their own, without waiting: the flag rises once all ended.
private func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Flag {
  let ended = Flag()
  let remaining = Tally()
  for index in 0..<count {
    Thread {
      body(index)
      if remaining.next() == count { ended.raise() }
    }.start()
  }
  return ended
}
