import Arbor
import ArborTestSupport
import Testing

/// A main-actor class built by its own initialiser in a `.cacheable(on: MainActor.self)` loader, and
/// the three ways to request it.
@Suite(.timeLimit(.minutes(1))) struct MainActorModelTests {
  @Test func aSynchronousRequestOnTheMainActorBuildsTheModelInPlaceOnce() async throws {
    let root = appRoot()
    let toasts: Toasts = try synchronously { try root.instance() }
    toasts.show("saved")
    let again: Toasts = try synchronously { try root.instance() }
    #expect(again.visible() == ["saved"])  // the one ToastCenter the loader built
    try await root.close()
  }

  @Test func anAwaitedRequestFromElsewhereHopsToTheMainActor() async throws {
    let root = appRoot()
    try await Task.detached {
      #expect(!MainQueue.isCurrent())
      try await toastFromBackground(root, "synced")
    }.value
    let toasts: Toasts = try await root.instance()
    #expect(toasts.visible() == ["synced"])
    try await root.close()
  }

  @Test func aSynchronousRequestFromElsewhereIsRefusedWithTheFix() async throws {
    let root = appRoot()
    let error = await Task.detached {
      #expect(throws: FeatureRequiresMainActor.self) { try toastsWithoutWaiting(root) }
    }.value
    #expect(error?.feature == Toasts.self)
    let tree = try #require(error?.diagnostic.renderedTree())
    #expect(tree.hasPrefix("FeatureRequiresMainActor: Toasts loads on the main actor\n"))
    #expect(
      tree.hasSuffix(
        """
        └─ fix: request it with `try await features.instance()`, which runs its loader on the main actor,
                or make this request from the main actor,
                or load it once on the main actor before requests from elsewhere
        """))
    #expect(tree.contains("├─ implementation: Toasts.live() registered at ArborAppTests/ArborInAnAppSamples.swift:"))
    // Loaded once on the main actor, the instance is served to synchronous requests from anywhere.
    let toasts: Toasts = try synchronously { try root.instance() }
    toasts.show("ready")
    let served = try await Task.detached { try toastsWithoutWaiting(root) }.value
    #expect(served.visible() == ["ready"])
    try await root.close()
  }

  @Test func theMainActorIsRefusedALoadInFlightThatNeedsItInsteadOfWaitingForIt() async throws {
    let started = Signal()
    let release = Signal()
    let root = FeaturesRoot { registry in
      registry.use(Toasts.live())
      registry.use(
        .cacheable { features async throws in
          started.raise()
          #expect(await release.wait())
          let toasts: Toasts = try await features.instance()  // needs the main actor
          return Unread(count: await toasts.visible().count)
        })
    }
    let unread = Task.detached { try await root.instance(of: Unread.self) }
    #expect(await started.wait())
    // Waiting here for the load in flight would never end: it needs the main actor this test holds.
    #expect(throws: FeatureRequiresAwait.self) { try synchronously { try root.instance(of: Unread.self) } }
    release.raise()
    #expect(try await unread.value.count == 0)
    try await root.close()
  }
}

/// A plain async cacheable whose load needs a main-actor feature.
private struct Unread: CacheableFeature {
  var count: Int
  static var placeholder: Unread { Unread(count: -1) }
}
