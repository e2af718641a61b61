import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Testing

/// A ``LoadProfile`` keeps every renewal: a line and what it renewed in the report, an event in the
/// Chrome trace.
@Suite struct LoadProfileRenewalTests {
  static func tree(_ profile: LoadProfile, clock: ManualClock, teardownFails: Bool = false) -> Features {
    FeaturesRoot(observer: profile, clock: clock) { registry in
      registry.use(
        .cacheable(implementation: "live()", timeToLive: .seconds(60)) { _ in
          ExpiringToken(value: 1)
        } teardown: { _ in
          if teardownFails { throw Revoked() }
        })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in
            TokenClient(token: try features.instance(of: ExpiringToken.self).value)
          })
      }
    }
  }

  @Test func theReportListsEachRenewalAndWhatItRenewedDependentsFirst() async throws {
    let profile = LoadProfile()
    let clock = ManualClock()
    let root = Self.tree(profile, clock: clock)
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: TokenClient.self)
    _ = try await root.refresh(ExpiringToken.self, file: "App/Session.swift", line: 40)
    _ = try await session.instance(of: TokenClient.self)
    #expect(profile.renewals.map(\.cause) == [.refresh(SourceLocation(fileID: "App/Session.swift", line: 40))])
    let report = profile.report().replacing(/\d+\.\d\d ms/, with: "T ms")
    #expect(
      report.hasSuffix(
        """
        a refresh at App/Session.swift:40 renewed 2 instances: T ms
        ├─ TokenClient (TokenClient.live()) in Root › SessionScope(Session(user: "ann"))
        └─ ExpiringToken (ExpiringToken.live()) in Root
        """))
    #expect(report.hasPrefix("4 loads, T ms at the top"))
    try await root.close()
  }

  @Test func anExpiryAndItsFailedTeardownsAreReported() async throws {
    let profile = LoadProfile()
    let clock = ManualClock()
    let root = Self.tree(profile, clock: clock, teardownFails: true)
    _ = try await root.instance(of: ExpiringToken.self)
    clock.advance(by: .seconds(60))
    // The expired token is renewed by this request; its teardown runs in a task of its own, whose
    // failure goes to the issue reporter.
    let reported = Flag()
    let reports = Collected<String>()
    try await IssueReporting.$capture.withValue(
      .init { report in
        reports.append(report.kind)
        reported.raise()
      }
    ) {
      _ = try await root.instance(of: ExpiringToken.self)
      #expect(await reported.suspendUntilRaised(seconds: 30))
    }
    #expect(reports.all == ["TeardownFailed"])
    let report = profile.report().replacing(/\d+\.\d\d ms/, with: "T ms")
    #expect(
      report.hasSuffix(
        "an expiry renewed 1 instance: T ms, 1 teardown failed\n└─ ExpiringToken (ExpiringToken.live()) in Root"))
    await #expect(throws: TeardownFailed.self) { try await root.close() }  // the new token's teardown fails too
  }

  @Test func theChromeTraceHasAnEventPerRenewalOnATrackOfItsOwn() async throws {
    let profile = LoadProfile()
    let clock = ManualClock()
    let root = Self.tree(profile, clock: clock)
    _ = try await root.instance(of: ExpiringToken.self)
    _ = try await root.refresh(ExpiringToken.self, file: "App/Session.swift", line: 40)
    let trace = profile.chromeTrace()
    #expect(trace.components(separatedBy: #""ph":"X""#).count == 3)
    #expect(
      trace.contains(#"{"name":"a refresh at App/Session.swift:40 renewed 1 instance","cat":"renewal","ph":"X","#))
    #expect(
      trace.contains(
        #""pid":1,"tid":2,"args":{"renewed":["ExpiringToken (ExpiringToken.live()) in Root"],"failures":0}}"#))
    try await root.close()
  }

  @Test func aProfileOfRenewalsAloneHasATrace() async throws {
    let profile = LoadProfile()
    profile.renewed(try await Self.renewalSeenByAnotherObserver())
    #expect(profile.loads.isEmpty)
    #expect(profile.chromeTrace().contains(#""cat":"renewal""#))
  }

  /// A renewal as another tree's observer saw it.
  static func renewalSeenByAnotherObserver() async throws -> RenewalEvent {
    let seen = LoadProfile()
    let root = tree(seen, clock: ManualClock())
    _ = try await root.instance(of: ExpiringToken.self)
    _ = try await root.refresh(ExpiringToken.self)
    try await root.close()
    return try #require(seen.renewals.first)
  }

  struct Revoked: Error {}
}
