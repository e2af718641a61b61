import ArborTestSupport
import ArborTesting
import Testing

/// The inbox's model, tested as the article shows: in a test container, on the main actor.
@Suite(.timeLimit(.minutes(1))) struct InboxModelTests {
  @Test func markingAMessageReadRefreshesTheInboxAndShowsAToast() async throws {
    let features = TestFeatures()  // every feature is its placeholder until patched
    features.patch(\MessageStore.messages, with: { [Message(id: 1, subject: "Welcome", isRead: true)] })
    features.patch(\MessageStore.markRead, with: { _ in })
    let toasts: Toasts = try await features.load(Toasts.live())  // the real loader, on the main actor
    features.use(toasts)

    let inbox = try InboxModel(features: features)
    try await inbox.markRead(Message(id: 1, subject: "Welcome"))

    #expect(inbox.messages.map(\.isRead) == [true])
    #expect(toasts.visible() == ["Marked Welcome as read"])
    try await features.close()  // runs the teardown of the toasts loaded above
    #expect(toasts.visible().isEmpty)
  }

  @Test func aFailedMarkShowsNoToast() async throws {
    struct Offline: Error {}
    let features = TestFeatures()
    features.patch(\MessageStore.markRead, with: { _ in throw Offline() })
    let shown = Signal()
    features.patch(\Toasts.show, with: { _ in shown.raise() })
    let inbox = try InboxModel(features: features)
    await #expect(throws: Offline.self) { try await inbox.markRead(Message(id: 1, subject: "Welcome")) }
    #expect(!shown.isRaised)
    try await features.close()
  }

  @Test func aSynchronousLoadOnTheMainActorRunsTheLoaderInPlace() async throws {
    let features = TestFeatures()
    let toasts: Toasts = try synchronously { try features.load(Toasts.live()) }
    toasts.show("hello")
    #expect(toasts.visible() == ["hello"])
    try await features.close()
    #expect(toasts.visible().isEmpty)
  }

  @Test func aLoadOffTheMainActorIsTheTestsMistake() async throws {
    let features = TestFeatures()
    let refused = await Task.detached {
      #expect(throws: (any Error).self) { try synchronously { try features.load(Toasts.live()) as Toasts } }
    }.value
    let diagnostic = String(reflecting: try #require(refused))
    #expect(diagnostic.contains("Toasts.live() loads Toasts on the main actor"))
    #expect(
      diagnostic.contains(
        "load it from a @MainActor test, or await it: let toasts: Toasts = try await features.load(Toasts.live())"))
    // Awaited, the load hops to the main actor.
    let toasts: Toasts = try await Task.detached { try await features.load(Toasts.live()) }.value
    #expect(toasts.visible().isEmpty)
    try await features.close()
  }
}
