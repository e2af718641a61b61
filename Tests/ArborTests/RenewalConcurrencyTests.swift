import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Dispatch
import Testing

/// Requests racing refreshes: a request receives an instance from before a refresh or after it,
/// never one whose teardown started before the request began; every renewal loads each renewed
/// instance once, no more; refreshes of one tree run in turn.
@Suite(.timeLimit(.minutes(2))) struct RenewalConcurrencyTests {
  /// A credential and settings in the root; per session a client on the credential and inboxes on the
  /// client; per task an uploader on the client and the settings.
  static func tree(_ ledger: RenewalLedger, async: Bool) -> Features {
    FeaturesRoot { registry in
      if async {
        registry.use(ledger.asyncCacheable(Credential.self))
        registry.use(ledger.asyncCacheable(Settings.self))
      } else {
        registry.use(ledger.cacheable(Credential.self))
        registry.use(ledger.cacheable(Settings.self))
      }
      registry.defineScope(SessionScope.self) { registry in
        if async {
          registry.use(ledger.asyncCacheable(ApiClient.self) { _ = try await $0.instance(of: Credential.self) })
          registry.use(
            ledger.asyncMultiton(Inbox.self) { _, features in _ = try await features.instance(of: ApiClient.self) })
        } else {
          registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
          registry.use(ledger.multiton(Inbox.self) { _, features in _ = try features.instance(of: ApiClient.self) })
        }
        registry.defineScope(TaskScope.self) { registry in
          if async {
            registry.use(
              ledger.asyncCacheable(Uploader.self) {
                _ = try await $0.instance(of: ApiClient.self)
                _ = try await $0.instance(of: Settings.self)
              })
          } else {
            registry.use(
              ledger.cacheable(Uploader.self) {
                _ = try $0.instance(of: ApiClient.self)
                _ = try $0.instance(of: Settings.self)
              })
          }
        }
      }
    }
  }

  static let labels =
    ["Credential", "Settings", "ApiClient@ann", "Uploader@ann/t1"] + (0..<3).map { "Inbox@ann(\($0))" }

  /// Requests racing refreshes in one tree: two tasks refresh the credential, the client and the
  /// settings in turn, `rounds` times each, each time once the requests made progress.
  struct Race {
    let ledger = RenewalLedger()
    let root: Features
    let session: Features
    let task: Features
    let rounds = runsUnderThreadSanitizer ? 60 : 300
    /// The refreshes that ended.
    let ended = Tally()
    /// What they renewed.
    let renewed = Collected<RenewedInstance>()
    /// The requests that ended.
    let requests = Tally()
    let requestsEnded = Flag()

    init(async: Bool) throws {
      root = RenewalConcurrencyTests.tree(ledger, async: async)
      session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      task = try session.branch(TaskScope.self, context: "t1")
    }

    var isOver: Bool { ended.value >= 2 * rounds }

    func startRefreshing() -> Task<Void, any Error> {
      Task {
        try await withThrowingTaskGroup(of: Void.self) { group in
          for refresher in 0..<2 {
            group.addTask {
              for round in 0..<rounds {
                // Requests run between refreshes, so that each refresh has instances to renew.
                let seen = requests.value
                while requests.value < seen + 8 && !requestsEnded.isRaised { await Task.yield() }
                let instances =
                  switch (round + refresher) % 3 {
                  case 0: try await root.refresh(Credential.self)
                  case 1: try await session.refresh(ApiClient.self)
                  default: try await task.refresh(Settings.self)
                  }
                for instance in instances { renewed.append(instance) }
                ended.next()
              }
            }
          }
          try await group.waitForAll()
        }
      }
    }

    /// Waits for the refreshes to end (failing the test instead of hanging it if they do not),
    /// requests every instance once more, loading what a renewal let go of, then checks that each
    /// label loaded once, plus once per instance renewed, and that no request received an instance
    /// whose teardown had started; closes the tree.
    func finish(_ refreshing: Task<Void, any Error>) async throws {
      requestsEnded.raise()
      let refreshed = Flag()
      Task {
        _ = await refreshing.result
        refreshed.raise()
      }
      try #require(await refreshed.suspendUntilRaised(seconds: 90), "the refreshes hang")
      try await refreshing.value
      #expect(ended.value == 2 * rounds)
      _ = try await task.instance(of: Uploader.self)
      for id in 0..<3 { _ = try await session.instance(of: Inbox.self, context: id) }
      #expect(ledger.staleReceipts.all.isEmpty, "received after their teardown started: \(ledger.staleReceipts.all)")
      #expect(ledger.doubleTeardowns.all.isEmpty)
      let downs = ledger.entries("down ")
      #expect(downs.count == renewed.all.count)
      for label in labels {
        let renewals = downs.filter { $0.hasPrefix("down \(label) ") }.count
        #expect(ledger.loads(label) == renewals + 1, "\(label): \(ledger.loads(label)) loads, \(renewals) renewals")
      }
      try await root.close()
      #expect(ledger.doubleTeardowns.all.isEmpty)
      #expect(ledger.entries("down ").count == ledger.entries("up ").count)
    }
  }

  @Test func threadsRequestingWhileTasksRefreshGetLiveInstancesAndEachRenewalLoadsOnce() async throws {
    let race = try Race(async: false)
    let (ledger, session, task) = (race.ledger, race.session, race.task)
    let refreshing = race.startRefreshing()
    let timedOut = Flag()
    await onThreads(6) { thread in
      let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
      var index = thread
      // Until every refresh ended: they run on the cooperative pool, these on threads of their own.
      while !race.isOver {
        if DispatchTime.now().uptimeNanoseconds > deadline { return timedOut.raise() }
        index += 1
        do {
          switch index % 4 {
          case 0: _ = try ledger.receive { try task.instance(of: Uploader.self) }
          case 1: _ = try ledger.receive { try session.instance(of: ApiClient.self) }
          case 2: _ = try ledger.receive { try task.instance(of: Credential.self) }
          default: _ = try ledger.receive { try session.instance(of: Inbox.self, context: index % 3) }
          }
          race.requests.next()
        } catch {
          Issue.record(error)
        }
      }
    }
    #expect(!timedOut.isRaised, "the refreshes did not end within a minute")
    try await race.finish(refreshing)
  }

  @Test func tasksRequestingAsyncInstancesWhileOthersRefreshGetLiveInstancesAndEachRenewalLoadsOnce() async throws {
    let race = try Race(async: true)
    let (ledger, session, task) = (race.ledger, race.session, race.task)
    let refreshing = race.startRefreshing()
    try await withTimeout(seconds: 90) {
      defer { race.requestsEnded.raise() }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for requester in 0..<6 {
          group.addTask {
            var index = requester
            while !race.isOver && !Task.isCancelled {
              index += 1
              switch index % 4 {
              case 0: _ = try await ledger.receive { try await task.instance(of: Uploader.self) }
              case 1: _ = try await ledger.receive { try await session.instance(of: ApiClient.self) }
              case 2: _ = try await ledger.receive { try await task.instance(of: Credential.self) }
              default: _ = try await ledger.receive { try await session.instance(of: Inbox.self, context: index % 3) }
              }
              race.requests.next()
              // A cached instance is returned without suspending: let the refreshes run.
              await Task.yield()
            }
          }
        }
        try await group.waitForAll()
      }
    }
    try await race.finish(refreshing)
  }

  @Test func twoRefreshesOfOneFeatureRunInTurn() async throws {
    let ledger = RenewalLedger()
    let events = Collected<String>()
    let tearingDown = Flag()
    let gate = Flag()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "live()") { features in
          ledger.make(Credential.self, in: features)
        } teardown: {
          credential in
          events.append("start \(credential.serial)")
          if credential.serial == 1 {
            tearingDown.raise()
            _ = await gate.suspendUntilRaised()
          }
          events.append("end \(credential.serial)")
        })
    }
    _ = try synchronously { try root.instance(of: Credential.self) }
    let first = Task { try await root.refresh(Credential.self) }
    #expect(await tearingDown.suspendUntilRaised())
    // The first refresh let go of the instance before tearing it down: a request loads a new one.
    #expect(try synchronously { try root.instance(of: Credential.self).serial } == 2)
    let second = Task { try await root.refresh(Credential.self) }
    // Chances for the second refresh to run, which it must not take while the first one runs.
    for _ in 0..<1_000 { await Task.yield() }
    #expect(events.all == ["start 1"])
    #expect(try synchronously { try root.instance(of: Credential.self).serial } == 2)
    gate.raise()

    let renewedFirst = try await withTimeout { try await first.value }
    let renewedSecond = try await withTimeout { try await second.value }
    #expect(renewedFirst.map(\.description) == ["Credential (Credential.live()) in Root"])
    #expect(renewedSecond.map(\.description) == ["Credential (Credential.live()) in Root"])
    #expect(events.all == ["start 1", "end 1", "start 2", "end 2"])
    #expect(try synchronously { try root.instance(of: Credential.self).serial } == 3)
    try await root.close()
  }
}
