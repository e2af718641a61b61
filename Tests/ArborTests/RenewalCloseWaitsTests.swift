import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// A close returns once every instance of its branch is torn down, those a renewal forgot and is
/// tearing down included; a renewal's teardown that closes its own branch returns at once.
@Suite(.timeLimit(.minutes(1))) struct RenewalCloseWaitsTests {
  /// A root whose `Token` teardown logs, says it started, and holds until `gate` is raised.
  static func tree(_ log: Collected<String>, started: Flag, gate: Flag, clock: ManualClock? = nil) -> Features {
    FeaturesRoot(clock: clock ?? ManualClock()) { registry in
      registry.use(
        .cacheable(implementation: "live()", timeToLive: clock == nil ? nil : .seconds(60)) { _ in
          ExpiringToken(value: 1)
        } teardown: { _ in
          log.append("token down")
          started.raise()
          _ = await gate.suspendUntilRaised()
          log.append("token down ended")
        })
    }
  }

  @Test func aCloseWaitsForTheTeardownsOfARefreshUnderWay() async throws {
    let (log, started, gate) = (Collected<String>(), Flag(), Flag())
    let root = Self.tree(log, started: started, gate: gate)
    _ = try synchronously { try root.instance(of: ExpiringToken.self) }
    let refresh = Task { try await root.refresh(ExpiringToken.self) }
    #expect(await started.suspendUntilRaised())
    let close = Task {
      try await root.close()
      log.append("closed")
    }
    #expect(await eventually { root.closesWaitingForRenewals == 1 })
    #expect(log.all == ["token down"])
    gate.raise()
    #expect(await ends { try await close.value })
    #expect(await ends { _ = try await refresh.value })
    #expect(log.all == ["token down", "token down ended", "closed"])
  }

  @Test func aCloseWaitsForTheTeardownOfAnExpiredInstance() async throws {
    let (log, started, gate, clock) = (Collected<String>(), Flag(), Flag(), ManualClock())
    let root = Self.tree(log, started: started, gate: gate, clock: clock)
    _ = try synchronously { try root.instance(of: ExpiringToken.self) }
    clock.advance(by: .seconds(60))
    _ = try synchronously { try root.instance(of: ExpiringToken.self) }  // renews the expired one
    #expect(await started.suspendUntilRaised())
    let close = Task {
      try await root.close()
      log.append("closed")
    }
    #expect(await eventually { root.closesWaitingForRenewals == 1 })
    gate.raise()
    #expect(await ends { try await close.value })
    // The expired instance's teardown, then the close's of the new one (its gate is raised).
    #expect(log.all == ["token down", "token down ended", "token down", "token down ended", "closed"])
  }

  /// The teardown's close returns at once and goes on: the refresh ends, and the branch is closed.
  @Test func aRefreshsTeardownThatClosesItsOwnBranchReturnsAtOnceAndTheBranchIsClosedAfter() async throws {
    let log = Collected<String>()
    let session = Lock<Features?>.make(nil)
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { _ in
            ExpiringToken(value: 1)
          } teardown: { _ in
            log.append("token down")
            try await session.withLock { $0 }?.close()
            log.append("session closed")
          })
      }
    }
    let branch = try root.branch(SessionScope.self, context: Session(user: "ann"))
    session.withLock { $0 = branch }
    defer { session.withLock { $0 = nil } }
    _ = try synchronously { try branch.instance(of: ExpiringToken.self) }
    #expect(await ends { _ = try await branch.refresh(ExpiringToken.self) })
    #expect(log.all == ["token down", "session closed"])
    #expect(throws: FeaturesClosed.self) { try branch.context(ifPresent: SessionScope.self) }
    #expect(await ends { try await branch.close() })
  }
}
