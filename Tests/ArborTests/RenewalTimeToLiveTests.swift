import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// An instance with a time-to-live serves until it is that old on the root's clock; the first request
/// that finds it expired renews it, with its dependents, once, and concurrent requests wait for the
/// new one. The expired instances' teardowns run on their own, and their failures are reported.
@Suite struct RenewalTimeToLiveTests {
  static let file = "ArborTests/RenewalTimeToLiveTests.swift"

  /// A credential that lives a minute, and per session a client built on it and a sidecar that is not.
  static func tree(
    _ ledger: RenewalLedger, clock: ManualClock, async: Bool = false, throwing: Bool = false,
    observer: RenewalLog? = nil, line: UInt = #line
  ) -> Features {
    FeaturesRoot(observer: observer, clock: clock) { registry in
      if async {
        registry.use(
          ledger.asyncCacheable(Credential.self, timeToLive: .seconds(60), throwing: throwing, line: line),
          line: line)
      } else {
        registry.use(
          ledger.cacheable(Credential.self, timeToLive: .seconds(60), throwing: throwing, line: line), line: line)
      }
      registry.use(ledger.cacheable(Settings.self))
      registry.defineScope(SessionScope.self) { registry in
        if async {
          registry.use(ledger.asyncCacheable(ApiClient.self) { _ = try await $0.instance(of: Credential.self) })
        } else {
          registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
        }
        registry.use(ledger.cacheable(Sidecar.self) { _ = try $0.instance(of: Settings.self) })
      }
    }
  }

  @Test(arguments: [false, true])
  func anInstanceServesUntilItExpiresAndIsThenRenewedOnceWithItsDependents(_ async: Bool) async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let root = Self.tree(ledger, clock: clock, async: async)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instance(of: ApiClient.self).serial == 1)
    #expect(try await session.instance(of: Sidecar.self).serial == 1)

    clock.advance(by: .seconds(59))
    #expect(try await root.instance(of: Credential.self).serial == 1)
    #expect(try await session.instance(of: ApiClient.self).serial == 1)
    #expect(ledger.loads("Credential") == 1)

    clock.advance(by: .seconds(1))  // exactly its time-to-live
    #expect(try await root.instance(of: Credential.self).serial == 2)
    #expect(try await first(2, of: ledger.teardowns) == ["down ApiClient@ann 1", "down Credential 1"])
    #expect(try await session.instance(of: ApiClient.self).serial == 2)
    #expect(try await session.instance(of: Sidecar.self).serial == 1)
    #expect(ledger.loads("Credential") == 2)
    #expect(ledger.loads("ApiClient@ann") == 2)

    // The new instance ages from its own load.
    clock.advance(by: .seconds(59))
    #expect(try await root.instance(of: Credential.self).serial == 2)
    clock.advance(by: .seconds(1))
    #expect(try await session.instance(of: Credential.self).serial == 3)
    #expect(try await first(2, of: ledger.teardowns) == ["down ApiClient@ann 2", "down Credential 2"])
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
    #expect(ledger.entries("down ").count == ledger.entries("up ").count)
  }

  @Test func threadsThatFindTheInstanceExpiredTogetherWaitForOneNewInstance() async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let root = Self.tree(ledger, clock: clock)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try session.instance(of: ApiClient.self) }
    let received = Collected<(serial: Int, tornDown: Bool)>()
    for round in 1...20 {
      clock.advance(by: .seconds(60))
      await onThreads(8) { thread in
        do {
          let instance =
            try thread.isMultiple(of: 2)
            ? root.instance(of: Credential.self) : session.instance(of: Credential.self)
          received.append((instance.serial, instance.life.isTornDown))
        } catch {
          Issue.record(error)
        }
      }
      #expect(ledger.loads("Credential") == round + 1)
      #expect(try await first(2, of: ledger.teardowns) == ["down ApiClient@ann \(round)", "down Credential \(round)"])
      #expect(try synchronously { try session.instance(of: ApiClient.self).serial } == round + 1)
    }
    #expect(received.all.count == 160)
    #expect(received.all.allSatisfy { !$0.tornDown })
    #expect(Set(received.all.map(\.serial)) == Set(2...21))
    try await root.close()
  }

  @Test func tasksThatFindAnAsyncInstanceExpiredTogetherWaitForOneNewInstance() async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let root = Self.tree(ledger, clock: clock, async: true)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: ApiClient.self)
    for round in 1...20 {
      clock.advance(by: .seconds(60))
      let received = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
        for index in 0..<8 {
          group.addTask {
            let instance = try await (index.isMultiple(of: 2) ? root : session).instance(of: Credential.self)
            return (instance.serial, instance.life.isTornDown)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(received.map(\.0) == Array(repeating: round + 1, count: 8))
      #expect(received.allSatisfy { !$0.1 })
      #expect(ledger.loads("Credential") == round + 1)
      #expect(try await first(2, of: ledger.teardowns) == ["down ApiClient@ann \(round)", "down Credential \(round)"])
      #expect(try await session.instance(of: ApiClient.self).serial == round + 1)
    }
    try await root.close()
  }

  @Test func eachContextOfAMultitonExpiresOnItsOwn() async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(ledger.multiton(Mailbox.self, timeToLive: .seconds(60)))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          ledger.multiton(Inbox.self) { id, features in _ = try features.instance(of: Mailbox.self, context: id) })
      }
    }
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try synchronously { _ = try ann.instance(of: Inbox.self, context: 1) }
    clock.advance(by: .seconds(30))
    try synchronously { _ = try ann.instance(of: Inbox.self, context: 2) }
    clock.advance(by: .seconds(30))

    try synchronously { () throws in
      #expect(try root.instance(of: Mailbox.self, context: 2).serial == 1)
      #expect(try root.instance(of: Mailbox.self, context: 1).serial == 2)
    }
    #expect(try await first(2, of: ledger.teardowns) == ["down Inbox@ann(1) 1", "down Mailbox(1) 1"])
    try synchronously { () throws in
      #expect(try ann.instance(of: Inbox.self, context: 1).serial == 2)
      #expect(try ann.instance(of: Inbox.self, context: 2).serial == 1)
    }
    clock.advance(by: .seconds(30))
    try synchronously { () throws in
      #expect(try root.instance(of: Mailbox.self, context: 1).serial == 2)
      #expect(try root.instance(of: Mailbox.self, context: 2).serial == 2)
    }
    #expect(try await first(2, of: ledger.teardowns) == ["down Inbox@ann(2) 1", "down Mailbox(2) 1"])
    try await root.close()
    #expect(ledger.doubleTeardowns.all.isEmpty)
  }

  struct LiveSettings: FeatureImplementation {
    static let loads = Tally()
    let instance: Settings
    init(context: NoContext, features: Features) throws {
      instance = Settings(life: Life(label: "Settings", serial: Self.loads.next(), live: LiveObjects()))
    }
    static var timeToLive: Duration? { .seconds(5) }
  }

  @Test func anImplementationTypeWithATimeToLiveExpires() throws {
    let clock = ManualClock()
    let root = FeaturesRoot(clock: clock) { registry in registry.use(LiveSettings.self) }
    let first = try root.instance(of: Settings.self).serial
    clock.advance(by: .seconds(4))
    #expect(try root.instance(of: Settings.self).serial == first)
    clock.advance(by: .seconds(1))
    #expect(try root.instance(of: Settings.self).serial == first + 1)
  }

  @Test func theTeardownFailureOfAnExpiredInstanceIsReported() async throws {
    let ledger = RenewalLedger()
    let clock = ManualClock()
    let line = #line + 1
    let root = Self.tree(ledger, clock: clock, throwing: true)
    _ = try synchronously { try root.instance(of: Credential.self) }
    clock.advance(by: .seconds(60))

    let reports = try await streamingReports { reports in
      #expect(try synchronously { try root.instance(of: Credential.self).serial } == 2)
      return try await first(1, of: reports)
    }

    #expect(reports.map(\.severity) == [.failure])
    #expect(
      reports.first?.diagnostic.renderedTree() == """
        TeardownFailed: 1 teardown failed while renewing in Root
        ├─ fix: handle the error in the teardown, or let it throw and read it here:
        │       every other teardown ran, and the next requests load new instances
        └─ cause: Closed: Credential 1 would not close
           ├─ scope: Root
           └─ torn down: Credential (Credential.live() at \(Self.file):\(line), registered at \(Self.file):\(line))
        """)
    #expect(ledger.entries("down ") == ["down Credential 1"])
    await #expect(throws: TeardownFailed.self) { try await root.close() }
    #expect(ledger.entries("down ") == ["down Credential 1", "down Credential 2"])
  }
}
