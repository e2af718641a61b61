// The code of the "Arbor in an app" article (Sources/Core/Arbor.docc/ArborInAnApp.md), compiled in
// a module whose code is main-actor by default, as a new app target's is. DocsSamplesTests checks
// that the article shows this code; the tests of this target run it.
import Arbor
import Observation

/// Who is signed in: the context of every inbox branch.
struct Account: Hashable, Sendable {
  var name: String
}

/// A message of the inbox.
struct Message: Hashable, Sendable, Identifiable {
  var id: Int
  var subject: String
  var isRead = false
}

/// A kind of branch: one per signed-in account, for as long as its inbox is on screen.
enum InboxScope: FeaturesScope { typealias Context = Account }

/// Whether the inbox shows the first line of each message.
enum ShowsPreviews: FeaturesProperty {
  static var defaultValue: Bool { true }
}

/// The account's messages, wherever they are kept.
struct MessageStore: CacheableFeature {
  var messages: @Sendable () async throws -> [Message]
  var markRead: @Sendable (_ id: Message.ID) async throws -> Void
  static var placeholder: MessageStore {
    MessageStore(messages: unimplemented("MessageStore.messages"), markRead: unimplemented("MessageStore.markRead"))
  }
}

/// Short messages shown over whatever screen is up.
struct Toasts: CacheableFeature {
  var show: @MainActor @Sendable (_ text: String) -> Void
  var visible: @MainActor @Sendable () -> [String]
  var dismissAll: @MainActor @Sendable () -> Void
  static var placeholder: Toasts {
    Toasts(
      show: unimplemented("Toasts.show"), visible: unimplemented("Toasts.visible", placeholder: []),
      dismissAll: unimplemented("Toasts.dismissAll"))
  }
}

/// The toasts on screen: main-actor state, as everything a view reads is.
@Observable
final class ToastCenter {
  private(set) var texts: [String] = []

  func show(_ text: String) { texts.append(text) }
  func dismissAll() { texts.removeAll() }
}

extension Toasts {
  static func live() -> FeatureLoader {
    .cacheable(on: MainActor.self) { features in
      let center = ToastCenter()  // a main-actor initialiser, called on the main actor
      return Toasts(show: { center.show($0) }, visible: { center.texts }, dismissAll: { center.dismissAll() })
    } teardown: { toasts in
      toasts.dismissAll()  // on the main actor too
    }
  }
}

extension MessageStore {
  /// The account's messages, kept in memory.
  static func inMemory(_ messages: [Message]) -> FeatureLoader {
    .cacheable { features in
      let account = try features.context(for: InboxScope.self)
      let kept = Kept(messages.map { Message(id: $0.id, subject: "\(account.name): \($0.subject)") })
      return MessageStore(messages: { await kept.all() }, markRead: { id in await kept.markRead(id) })
    }
  }

  /// The messages of one account, behind an actor of their own.
  private actor Kept {
    private var messages: [Message]
    init(_ messages: [Message]) { self.messages = messages }
    func all() -> [Message] { messages }
    func markRead(_ id: Message.ID) {
      if let index = messages.firstIndex(where: { $0.id == id }) { messages[index].isRead = true }
    }
  }
}

/// The app's tree: made once, when the app starts.
func appRoot() -> Features {
  FeaturesRoot { registry in
    registry.use(Toasts.live())
    registry.defineScope(InboxScope.self) { registry in
      registry.use(MessageStore.inMemory([Message(id: 1, subject: "Welcome"), Message(id: 2, subject: "Lunch?")]))
    }
  }
}

/// The inbox screen's model: it owns the screen's branch, from the screen's start to its end.
@Observable
final class InboxModel {
  private(set) var messages: [Message] = []
  private(set) var showsPreviews: Bool
  private let features: Features
  private let store: MessageStore
  private let toasts: Toasts

  /// Builds the model from the features of its branch: a synchronous request on the main actor
  /// loads `Toasts` in place.
  init(features: Features) throws {
    self.features = features
    store = try features.instance()
    toasts = try features.instance()
    showsPreviews = features[ShowsPreviews.self]
  }

  func refresh() async throws {
    messages = try await store.messages()
  }

  func markRead(_ message: Message) async throws {
    try await store.markRead(message.id)
    try await refresh()
    toasts.show("Marked \(message.subject) as read")
  }

  /// Follows the preview setting until the screen's branch closes.
  func followPreviews() async {
    for await shows in features.observe(ShowsPreviews.self) {
      showsPreviews = shows
    }
  }

  /// Ends the screen: tears down what its branch loaded.
  func close() async throws {
    try await features.close()
  }
}

/// What the app holds from its start to its end: the tree, and the model of the screen that is up.
@Observable
final class AppModel {
  let root = appRoot()
  private(set) var inbox: InboxModel?

  func signIn(_ account: Account) throws {
    inbox = try InboxModel(features: root.branch(InboxScope.self, context: account))
  }

  func signOut() async throws {
    let closing = inbox
    inbox = nil
    try await closing?.close()
  }
}

/// Work that runs off the main actor: the awaited request hops to the main actor to load `Toasts`,
/// if no request loaded it yet.
@concurrent
func toastFromBackground(_ features: Features, _ text: String) async throws {
  let toasts: Toasts = try await features.instance()
  await toasts.show(text)
}

/// Off the main actor, a synchronous request cannot hop: until `Toasts` is loaded, it throws
/// `FeatureRequiresMainActor`.
nonisolated func toastsWithoutWaiting(_ features: Features) throws -> Toasts {
  try features.instance()
}
