@_spi(Integrations) import Arbor
import ArborDemoFeatures
import Testing

/// `untilClosed()` (`@_spi(Integrations)`): a stream that lasts as long as its branch is open, for
/// background work that lives with a tree.
@Suite struct UntilClosedTests {
  /// How many values `stream` yields before it finishes.
  func count(_ stream: AsyncStream<Void>) async -> Int {
    var count = 0
    for await _ in stream { count += 1 }
    return count
  }

  @Test func finishesWhenTheBranchCloses() async throws {
    let root = FeaturesRoot { registry in registry.defineScope(SessionScope.self) { _ in } }
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let stream = session.untilClosed()
    try await root.close()  // closes the session first
    #expect(await count(stream) == 1)
  }

  @Test func finishesAtOnceWithoutAReportForABranchAlreadyClosed() async throws {
    let root = FeaturesRoot { _ in }
    try await root.close()
    let (stream, reports) = IssueReporting.capturingReports { root.untilClosed() }
    #expect(await count(stream) == 0)
    #expect(reports.isEmpty)
  }

  @Test func finishesWhenTheBranchIsReleased() async throws {
    var root: Features? = FeaturesRoot { _ in }
    let stream = root!.untilClosed()
    root = nil
    #expect(await count(stream) == 1)
  }
}
