import Arbor
import Testing

/// A property read and observed from the main actor, by a main-actor model.
@Suite(.timeLimit(.minutes(1))) struct PropertyTests {
  @Test func theMainActorReadsAndObservesAProperty() async throws {
    let root = FeaturesRoot { registry in
      registry.defineScope(InboxScope.self) { registry in registry.set(ShowsPreviews.self, to: false) }
    }
    let session = try root.branch(InboxScope.self, context: Account(name: "ann"))
    #expect(root[ShowsPreviews.self])
    #expect(!session[ShowsPreviews.self])
    var changes = session.observe(ShowsPreviews.self).makeAsyncIterator()
    #expect(await changes.next() == false)  // the value now
    session[ShowsPreviews.self] = true
    #expect(await changes.next() == true)
    try await session.close()
    #expect(await changes.next() == nil)  // the stream ends with the branch
    try await root.close()
  }

  @Test func theModelFollowsTheSettingUntilItsScreenCloses() async throws {
    let app = AppModel()
    try app.signIn(Account(name: "ann"))
    let inbox = try #require(app.inbox)
    #expect(inbox.showsPreviews)
    let following = Task { await inbox.followPreviews() }
    app.root[ShowsPreviews.self] = false  // the root's value reaches every branch that sets none
    #expect(await eventuallyOnTheMainActor { !inbox.showsPreviews })
    // The model follows now: a later change reaches it too.
    app.root[ShowsPreviews.self] = true
    #expect(await eventuallyOnTheMainActor { inbox.showsPreviews })
    try await app.signOut()
    await following.value  // the stream finished with the screen's branch
    try await app.root.close()
  }
}
