import Arbor
import ArborDemoFeatures
import Testing

/// Properties of a closed branch: reads give the default and report `FeaturesClosed`, sets change
/// nothing and report it, and `observe` streams end when the branch closes.
@Suite struct ClosedBranchPropertiesTests {
  enum Timeout: FeaturesProperty {
    static var defaultValue: Int { 30 }
  }

  @Test func readsAndSetsThroughAClosedBranchReportFeaturesClosed() async throws {
    let root = FeaturesRoot { registry in
      registry.set(Timeout.self, to: 10)
      registry.defineScope(SessionScope.self) { _ in }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    session[Timeout.self] = 5
    #expect(session[Timeout.self] == 5)
    try await session.close()
    let (values, reports) = IssueReporting.capturingReports { () -> [Int] in
      let read = session[Timeout.self]
      session[Timeout.self] = 1
      return [read, root[Timeout.self]]
    }
    #expect(values == [30, 10])  // the default through the closed branch; the root is untouched
    #expect(reports.map(\.kind) == ["FeaturesClosed", "FeaturesClosed"])
    #expect(
      reports.map(\.diagnostic.message) == [
        "Timeout reads its default value: cannot use the value of Timeout: its branch is closed",
        "Timeout was not set: cannot use the value of Timeout: its branch is closed",
      ])
  }

  @Test func observeStreamsEndWhenTheBranchClosesAndNoneStartsAfter() async throws {
    let root = FeaturesRoot { registry in registry.defineScope(SessionScope.self) { _ in } }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let below = try session.branch(SessionScope.self, context: Session(user: "bob"))
    let streams = [session.observe(Timeout.self), below.observe(Timeout.self)]
    try await root.close()
    for stream in streams {
      var values: [Int] = []
      for await value in stream { values.append(value) }  // ends: the close finished it
      #expect(values == [30])
    }
    let (_, reports) = await IssueReporting.capturingReports {
      for await _ in session.observe(Timeout.self) { Issue.record("a stream of a closed branch yielded") }
    }
    #expect(reports.map(\.kind) == ["FeaturesClosed"])
  }
}
