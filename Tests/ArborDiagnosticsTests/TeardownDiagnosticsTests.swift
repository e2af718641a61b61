import Arbor
import ArborDemoFeatures
import Testing

/// The exact text of the lifecycle's diagnostics: `FeaturesClosed`, `TeardownFailed` and
/// `TeardownSkipped`.
@Suite struct TeardownDiagnosticsTests {
  @Test func aRequestThroughAClosedBranchSaysWhichBranchWasClosedWhereAndHowToFix() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.use(.cacheable { _ in Greeter.placeholder }) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Greeter.self)
    let closeLine = #line + 1
    try await session.close()
    let line = #line + 1
    let error = await #expect(throws: FeaturesClosed.self) { try await session.instance(of: Greeter.self) }
    expectRenderings(
      of: error,
      tree: """
        FeaturesClosed: cannot resolve Greeter: its branch is closed
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ closed: Root › SessionScope(Session(user: "ann")), at \(site(closeLine))
        └─ fix: request Greeter before the branch is closed, or through a branch that is open
                (a new one, made with branch(...) from an open branch)
        """,
      line: "FeaturesClosed: cannot resolve Greeter: its branch is closed (\(site(line)))")
  }

  @Test func aBranchOrContextLookupBelowAClosedBranchNamesTheClosedAncestor() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in registry.defineScope(RequestScope.self) { _ in } }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: Request(id: 7))
    let closeLine = #line + 1
    try await session.close()
    let line = #line + 1
    let error = #expect(throws: FeaturesClosed.self) { try request.context(for: SessionScope.self) }
    #expect(
      String(reflecting: try #require(error)) == """
        FeaturesClosed: cannot read the context of SessionScope: its branch is closed
        ├─ requested at: \(site(line))
        ├─ scope: Root › SessionScope(Session(user: "ann")) › RequestScope(Request(id: 7))
        ├─ closed: Root › SessionScope(Session(user: "ann")), at \(site(closeLine))
        │          (this branch is below it)
        └─ fix: read the context of SessionScope before the branch is closed, or through a branch that is open
                (a new one, made with branch(...) from an open branch)
        """)
    let branchLine = #line + 1
    let branching = #expect(throws: FeaturesClosed.self) {
      try session.branch(RequestScope.self, context: Request(id: 8))
    }
    #expect(
      String(describing: try #require(branching))
        == "FeaturesClosed: cannot branch RequestScope: the branch it is made from is closed (\(site(branchLine)))")
  }

  @Test func failedTeardownsAreListedEachWithItsFeatureImplementationBranchAndCause() async throws {
    let root = sessionWithFailingTeardowns()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    _ = try await session.instance(of: Database.self)
    _ = try await session.instance(of: SearchIndex.self)
    let line = #line + 1
    let error = await #expect(throws: TeardownFailed.self) { try await session.close() }
    expectRenderings(
      of: error,
      tree: """
        TeardownFailed: 2 teardowns failed while closing Root › SessionScope(Session(user: "ann"))
        ├─ requested at: \(site(line))
        ├─ fix: handle the error in the teardown, or let it throw and read it here:
        │       every other teardown ran, and the branch is closed
        ├─ cause: Offline: the network is down
        │  ├─ scope: Root › SessionScope(Session(user: "ann"))
        │  └─ torn down: SearchIndex (SearchIndex.live() at App/SearchIndex.swift:5, registered at App/Main.swift:15)
        └─ cause: Offline: the network is down
           ├─ scope: Root › SessionScope(Session(user: "ann"))
           └─ torn down: Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)
        """,
      line:
        "TeardownFailed: 2 teardowns failed while closing Root › SessionScope(Session(user: \"ann\")) (\(site(line)))"
        + " ← Offline: the network is down ← Offline: the network is down")
  }

  @Test func aBranchDroppedWithoutCloseReportsTheTeardownsThatNeverRan() throws {
    let root = sessionWithFailingTeardowns()
    let (_, reports) = try IssueReporting.capturingReports {
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      _ = try session.instance(of: Database.self)
      _ = try session.instance(of: SearchIndex.self)
    }
    #expect(reports.map(\.severity) == [.failure])
    #expect(
      reports.map { $0.diagnostic.renderedTree() } == [
        """
        TeardownSkipped: a branch was released without close(): 2 teardowns never ran
        ├─ scope: Root › SessionScope(Session(user: "ann"))
        ├─ never torn down: SearchIndex (SearchIndex.live() at App/SearchIndex.swift:5, registered at App/Main.swift:15)
        │                   Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)
        └─ fix: close the branch before releasing it: call close() on it when its work ends,
                or make it with withBranch(...), which closes it when its body ends
        """
      ])
  }
  @Test func aRootDroppedWithoutCloseIsToldToCloseOnShutdown() throws {
    let (_, reports) = try IssueReporting.capturingReports {
      let root = FeaturesRoot { registry in
        registry.use(
          .cacheable(implementation: "live()", file: "App/Database.swift", line: 8) { _ in
            Database(close: {})
          } teardown: { database in
            try await database.close()
          }, file: "App/Main.swift", line: 14)
      }
      _ = try root.instance(of: Database.self)
    }
    #expect(
      reports.map { $0.diagnostic.renderedTree() } == [
        """
        TeardownSkipped: a branch was released without close(): 1 teardown never ran
        ├─ scope: Root
        ├─ never torn down: Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)
        └─ fix: close the root before releasing it: try await root.close() when the app shuts down
        """
      ])
  }
}
