import Arbor
import ArborDemoFeatures
import ArborTestSupport
import Testing

/// `withBranch` branches, runs the body, and closes the branch when the body returns, throws, or
/// its task is cancelled; it returns the body's result.
@Suite struct WithBranchTests {
  static func tree(_ log: Collected<String>, throwing: Bool = false) -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(resource(log, { Cache(name: "cache") }, named: "cache", throwing: throwing))
      }
      registry.defineScope(TaskScope.self) { registry in
        registry.use(resource(log, { Journal(name: "journal") }, named: "journal"))
      }
    }
  }

  @Test func closesWhenTheBodyReturnsAndReturnsItsResult() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    var kept: Features?
    let name = try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
      kept = session
      return try await session.instance(of: Cache.self).name
    }
    #expect(name == "cache")
    #expect(log.all == ["up cache", "down cache"])
    #expect(throws: FeaturesClosed.self) { try synchronously { try kept?.instance(of: Cache.self) } }
  }

  @Test func theVoidContextFormClosesToo() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(AdminScope.self) { registry in
        registry.use(resource(log, { Journal(name: "journal") }, named: "journal"))
      }
    }
    try await root.withBranch(AdminScope.self) { admin in
      _ = try await admin.instance(of: Journal.self)
    }
    #expect(log.all == ["up journal", "down journal"])
  }

  @Test func closesWhenTheBodyThrowsAndRethrowsItsError() async throws {
    let log = Collected<String>()
    let root = Self.tree(log)
    await #expect(throws: Boom.self) {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        _ = try await session.instance(of: Cache.self)
        throw Boom()
      }
    }
    #expect(log.all == ["up cache", "down cache"])
  }

  @Test func closesWhenItsTaskIsCancelledAndTheTeardownsRunUncancelled() async throws {
    let log = Collected<String>()
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Cache(name: "cache")
          } teardown: { _ in
            try await Task.sleep(for: .milliseconds(1))  // throws if the teardown runs cancelled
            log.append("down cache \(Task.isCancelled ? "cancelled" : "uncancelled")")
          })
      }
    }
    let loaded = Flag()
    let task = Task {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        _ = try await session.instance(of: Cache.self)
        loaded.raise()
        try await Task.sleep(for: .seconds(60))
      }
    }
    #expect(await loaded.suspendUntilRaised())
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(log.all == ["down cache uncancelled"])
  }

  @Test func whenTheBodyAndTheCloseFailTheBodysErrorIsThrownAndTheTeardownsReported() async throws {
    let log = Collected<String>()
    let root = Self.tree(log, throwing: true)
    let (_, reports) = await IssueReporting.capturingReports {
      await #expect(throws: Boom.self) {
        try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
          _ = try await session.instance(of: Cache.self)
          throw Boom()
        }
      }
    }
    #expect(reports.map(\.kind) == ["TeardownFailed"])
    #expect(reports.map(\.severity) == [.failure])
    #expect(log.all == ["up cache", "down cache"])
  }

  @Test func whenOnlyTheCloseFailsItsErrorIsThrown() async throws {
    let log = Collected<String>()
    let root = Self.tree(log, throwing: true)
    await #expect(throws: TeardownFailed.self) {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
        _ = try await session.instance(of: Cache.self)
      }
    }
  }

  @Test func aBranchThatCannotBeMadeRunsNoBody() async throws {
    let root = FeaturesRoot { _ in }
    await #expect(throws: FeaturesScopeUndefined.self) {
      try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { _ in
        Issue.record("the body ran")
      }
    }
  }
}
