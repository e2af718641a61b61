import Arbor
import Testing

/// A branch per signed-in account, owned by the inbox's model and closed when the screen goes.
@Suite(.timeLimit(.minutes(1))) struct SessionBranchTests {
  @Test func eachSignInGetsABranchOfItsOwnClosedAtSignOut() async throws {
    let app = AppModel()
    try app.signIn(Account(name: "ann"))
    let ann = try #require(app.inbox)
    try await ann.refresh()
    #expect(ann.messages.map(\.subject) == ["ann: Welcome", "ann: Lunch?"])
    try await ann.markRead(ann.messages[0])
    #expect(ann.messages.map(\.isRead) == [true, false])

    try await app.signOut()
    #expect(app.inbox == nil)

    try app.signIn(Account(name: "bob"))
    let bob = try #require(app.inbox)
    try await bob.refresh()
    #expect(bob.messages.map(\.subject) == ["bob: Welcome", "bob: Lunch?"])
    #expect(bob.messages.allSatisfy { !$0.isRead })  // bob's store is his own
    try await app.signOut()

    // A new sign-in is a new branch: ann's first store went with her first branch.
    try app.signIn(Account(name: "ann"))
    let annAgain = try #require(app.inbox)
    try await annAgain.refresh()
    #expect(annAgain.messages.map(\.isRead) == [false, false])
    try await app.signOut()
    try await app.root.close()
  }

  @Test func aSessionBranchReadsItsContextAndClosesWithinWithBranch() async throws {
    let root = appRoot()
    let subjects = try await root.withBranch(InboxScope.self, context: Account(name: "cy")) { session in
      #expect(try session.context(for: InboxScope.self) == Account(name: "cy"))
      let store: MessageStore = try await session.instance()
      return try await store.messages().map(\.subject)
    }
    #expect(subjects == ["cy: Welcome", "cy: Lunch?"])
    try await root.close()
  }
}
