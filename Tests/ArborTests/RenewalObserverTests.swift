import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// The observer is told of each renewal once, when its teardowns ended: a refresh, with where it was
/// called, or an expiry; what it renewed, as the refresh returns it; how many teardowns failed.
@Suite struct RenewalObserverTests {
  static func tree(_ ledger: RenewalLedger, _ observer: RenewalLog, clock: ManualClock = ManualClock()) -> Features {
    FeaturesRoot(observer: observer, clock: clock) { registry in
      registry.use(ledger.cacheable(Credential.self, timeToLive: .seconds(60)))
      registry.use(ledger.cacheable(Settings.self, throwing: true))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(ledger.cacheable(ApiClient.self) { _ = try $0.instance(of: Credential.self) })
        registry.use(ledger.cacheable(Sidecar.self, throwing: true) { _ = try $0.instance(of: Settings.self) })
      }
    }
  }

  @Test func eachRefreshIsOneEventWithWhereItWasCalledAndWhatItRenewed() async throws {
    let ledger = RenewalLedger()
    let observer = RenewalLog()
    let root = Self.tree(ledger, observer)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    try synchronously {
      _ = try session.instance(of: ApiClient.self)
      _ = try session.instance(of: Sidecar.self)
    }

    let line = #line + 1
    let renewed = try await session.refresh(Credential.self)
    let failing = #line + 1
    await #expect(throws: TeardownFailed.self) { try await root.refresh(Settings.self) }
    _ = try synchronously { try root.instance(of: Credential.self) }
    #expect(try await session.refresh(Credential.self).map(\.feature) == ["Credential"])
    // Nothing cached: nothing renewed, no event.
    #expect(try await session.refresh(ApiClient.self).isEmpty)

    let events = observer.events.all
    #expect(events.count == 3)
    #expect(
      events.first?.cause == .refresh(SourceLocation(fileID: "ArborTests/RenewalObserverTests.swift", line: UInt(line)))
    )
    #expect(events.first?.renewed.map(\.description) == renewed.map(\.description))
    #expect(events.first?.renewed.map(\.feature) == ["ApiClient", "Credential"])
    #expect(events.first?.failures == 0)
    #expect(events.first.map { $0.duration >= .zero } == true)
    #expect(
      events.dropFirst().first?.cause
        == .refresh(SourceLocation(fileID: "ArborTests/RenewalObserverTests.swift", line: UInt(failing))))
    #expect(events.dropFirst().first?.renewed.map(\.feature) == ["Sidecar", "Settings"])
    #expect(events.dropFirst().first?.failures == 2)
    #expect(events.last?.renewed.map(\.feature) == ["Credential"])
    try await root.close()
  }

  @Test func anExpiryIsOneEventWhenItsTeardownsEnded() async throws {
    let ledger = RenewalLedger()
    let observer = RenewalLog()
    let clock = ManualClock()
    let root = Self.tree(ledger, observer, clock: clock)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try synchronously { try session.instance(of: ApiClient.self) }
    clock.advance(by: .seconds(60))
    _ = try synchronously { try session.instance(of: Credential.self) }

    let events = try await first(1, of: observer.stream)
    #expect(events.map(\.cause) == [.expired])
    #expect(
      events.first?.renewed.map(\.description) == [
        #"ApiClient (ApiClient.live()) in Root › SessionScope(Session(user: "ann"))"#,
        "Credential (Credential.live()) in Root",
      ])
    #expect(events.first?.failures == 0)
    #expect(ledger.entries("down ") == ["down ApiClient@ann 1", "down Credential 1"])
    // A request of the new instance before it expires is no renewal.
    _ = try synchronously { try session.instance(of: Credential.self) }
    #expect(observer.events.all.count == 1)
    try await root.close()
    #expect(observer.events.all.count == 1)
  }
}
