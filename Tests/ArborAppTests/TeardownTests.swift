import Arbor
import ArborTestSupport
import Testing

/// A main-actor loader's teardown runs on the main actor, whoever closes its branch.
@Suite(.timeLimit(.minutes(1))) struct TeardownTests {
  @Test func closingTheRootDismissesTheToastsOnTheMainActor() async throws {
    let root = appRoot()
    let toasts: Toasts = try synchronously { try root.instance() }
    toasts.show("saved")
    // The teardown calls `dismissAll` on the toasts' ToastCenter: the instance seen here.
    try await root.close()
    #expect(toasts.visible().isEmpty)
  }

  @Test func aTeardownRunsOnTheMainActorWhenTheCloseRunsElsewhere() async throws {
    let tornDown = Signal()
    let onMainActor = Signal()
    let root = FeaturesRoot { registry in
      registry.defineScope(InboxScope.self) { registry in
        registry.use(
          .cacheable(on: MainActor.self) { _ in
            let center = ToastCenter()
            return Toasts(show: { center.show($0) }, visible: { center.texts }, dismissAll: { center.dismissAll() })
          } teardown: { _ in
            if MainQueue.isCurrent() { onMainActor.raise() }
            tornDown.raise()
          })
      }
    }
    let session = try root.branch(InboxScope.self, context: Account(name: "ann"))
    let _: Toasts = try await session.instance()
    try await Task.detached {
      #expect(!MainQueue.isCurrent())
      try await session.close()
    }.value
    #expect(tornDown.isRaised)  // the close returned after its teardowns
    #expect(onMainActor.isRaised)
    try await root.close()
  }
}
