import Arbor
import ArborTesting
import Testing

/// The app's tree validated from the main actor: no problems, and the graph says which loader runs
/// on the main actor.
@Suite(.timeLimit(.minutes(1))) struct ValidationTests {
  @Test func theAppTreeIsValidAndItsGraphShowsTheMainActorLoader() async throws {
    let root = appRoot()
    let validation = await root.validate { contexts in
      contexts.use(Account(name: "check"), for: InboxScope.self)
    }
    #expect(validation.problems.isEmpty, "\(validation.problems)")
    #expect(validation.graph.nodes.filter(\.runsOnMainActor).map(\.feature) == ["Toasts"])
    #expect(validation.graph.mermaid().contains("Toasts<br/>cacheable, main actor · Toasts.live()"))
    #expect(validation.graph.dot().contains("cacheable, main actor · Toasts.live()"))
    #expect(!validation.graph.mermaid().contains("MessageStore<br/>cacheable, main actor"))
    #expect(root.which(Toasts.self).implementation?.runsOnMainActor == true)
    try await root.close()
  }

  @Test func theAppTreeIsSound() async {
    await expectValidTree(appRoot()) { contexts in
      contexts.use(Account(name: "check"), for: InboxScope.self)
    }
  }

  @Test func aMissingContextIsAProblem() async throws {
    let validation = await appRoot().validate()
    #expect(validation.problems.map { "\(type(of: $0))" } == ["FeaturesScopeUnchecked"])
  }
}
