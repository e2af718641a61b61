import Arbor
import ArborDemoFeatures
import ArborTesting
import Testing

@Suite struct ValidationReportingTests {
  @Test func eachProblemIsItsOwnTestFailure() async throws {
    let issues = await capturingIssues {
      await expectValidTree(DemoTree.broken())  // Mailer is undefined, SessionScope has no context
      await expectValidTree(DemoTree.broken()) { $0.use(Session(user: "check"), for: SessionScope.self) }
    }
    #expect(
      issues.map { $0.text.split(separator: "\n").first.map(String.init) } == [
        "FeaturesScopeUnchecked: SessionScope was not checked: no context to branch it with",
        "FeatureUndefined: no implementation of Mailer",
      ])
    #expect(issues.allSatisfy { $0.sourceLocation == Test.current?.sourceLocation })  // each names its own site
  }

  @Test func aPatchedFeaturesLoaderDoesNotRunWhileValidatingACopy() async throws {
    let copy = TestFeatures(DemoTree.root(onGreeterLoad: { Issue.record("Greeter's loader ran") }))
    copy.patch(\Greeter.greet, with: {})
    let validation = await copy.validate { $0.use(Session(user: "check"), for: SessionScope.self) }
    #expect(validation.problems.isEmpty)
    #expect(validation.graph.nodes.map(\.feature) == ["Clock", "Printer", "Greeter", "Guestbook"])
  }
}
