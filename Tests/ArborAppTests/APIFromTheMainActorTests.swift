import Arbor
import ArborTestSupport
import ArborTesting
import Testing

/// The rest of Arbor's API called from main-actor code: task-local features and property wrappers,
/// keyed branches, a start with an eager main-actor feature, a renewal, optional features, a
/// suite's patches.
@Suite(.timeLimit(.minutes(1)), .features { $0.patch(\Clipboard.copy, with: { "patched \($0)" }) })
struct APIFromTheMainActorTests {
  @Test func aModelReadsTheCurrentFeaturesThroughItsPropertyWrappers() async throws {
    let root = appRoot()
    let session = try root.branch(InboxScope.self, context: Account(name: "ann"))
    let preview = try session.withCurrent { try PreviewModel() }
    let subjects = try await session.withCurrent { try await preview.subjects() }
    #expect(subjects == ["ann: Welcome", "ann: Lunch?"])
    #expect(preview.showsPreviews)
    #expect(try session.withCurrent { try Features.current() }.context(for: InboxScope.self).name == "ann")
    try await root.close()
  }

  @Test func keyedBranchesMakeOneBranchPerAccount() async throws {
    let root = appRoot()
    let sessions = KeyedBranches(InboxScope.self, of: root) { name in Account(name: name) }
    let first = try await sessions.withBranch(for: "ann") { session in
      let store: MessageStore = try await session.instance()
      try await store.markRead(1)
      return try await store.messages().map(\.isRead)
    }
    let second = try await sessions.withBranch(for: "ann") { session in
      try await session.instance(of: MessageStore.self).messages().map(\.isRead)
    }
    #expect(first == [true, false])
    #expect(second == first)  // the same branch, kept by its key
    #expect(sessions.count == 1)
    try await sessions.close()
    try await root.close()
  }

  @Test func aStartLoadsAnEagerMainActorFeatureAndRunsItsWork() async throws {
    let ran = Signal()
    let root = FeaturesRoot { registry in
      registry.use(Toasts.live(), eager: true)
      registry.beforeServing { features in
        let toasts: Toasts = try await features.instance()
        await toasts.show("started")
        ran.raise()
      }
    }
    try await root.start()
    #expect(ran.isRaised)
    let toasts: Toasts = try synchronously { try root.instance() }  // loaded by the start
    #expect(toasts.visible() == ["started"])
    let renewed = try await root.refresh(Toasts.self)
    #expect(renewed.count == 1)
    #expect(toasts.visible().isEmpty)  // the renewal tore the old one down, on the main actor
    #expect(try synchronously { try root.instanceIfDefined(of: Toasts.self) }?.visible() == [])
    #expect(try await root.instanceIfDefined(of: Clipboard.self) == nil)
    try await root.close()
  }

  @Test func aSuitesPatchReachesEveryTestContainer() throws {
    let features = TestFeatures()
    let clipboard: Clipboard = try features.instance()
    #expect(clipboard.copy("note") == "patched note")
  }
}

/// A model that reads the task's current features through property wrappers.
final class PreviewModel {
  @Resolved var store: MessageStore
  @Property(ShowsPreviews.self) var showsPreviews

  init() throws {
    _ = try $store.instance()  // fails here, not later, when no features are current
  }

  func subjects() async throws -> [String] {
    try await store.messages().map(\.subject)
  }
}
