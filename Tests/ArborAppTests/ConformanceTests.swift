import Arbor
import Synchronization
import Testing

/// Arbor's protocols adopted by types of a module whose code is main-actor by default: an
/// observer, an implementation type and an error, each used for real.
@Suite(.timeLimit(.minutes(1))) struct ConformanceTests {
  @Test func anObserverHearsOfMainActorLoadsAndOfClosedBranches() async throws {
    let observer = BranchesAndLoads()
    let root = FeaturesRoot(observer: observer) { registry in
      registry.use(Toasts.live())
      registry.use(.implementation(LiveClipboard.self))
      registry.defineScope(InboxScope.self) { _ in }
    }
    let session = try root.branch(InboxScope.self, context: Account(name: "ann"))
    let _: Toasts = try await session.instance()
    try await session.close()
    #expect(observer.loads.withLock { $0 } == ["Toasts on the main actor"])
    #expect(observer.closed.withLock { $0 } == 1)
    try await root.close()
  }

  @Test func anImplementationTypeLoadsAndAnErrorRendersItsDiagnostic() async throws {
    let root = FeaturesRoot { registry in registry.use(.implementation(LiveClipboard.self)) }
    let clipboard: Clipboard = try await root.instance()
    #expect(clipboard.copy("hello") == "hello")
    let error = Offline(what: "sync")
    #expect("\(error)" == "Offline: sync needs the network")
    try await root.close()
  }
}

/// An observer declared where code is main-actor by default: Arbor calls it from any thread.
final class BranchesAndLoads: FeaturesObserver {
  let loads = Mutex<[String]>([])
  let closed = Mutex(0)

  func loaded(_ load: LoadEvent) {
    loads.withLock { $0.append("\(load.feature)\(load.runsOnMainActor ? " on the main actor" : "")") }
  }

  func branchClosed(_ branch: BranchEvent) {
    closed.withLock { $0 += 1 }
  }
}

/// A disposable feature implemented by a type.
struct Clipboard: DisposableFeature {
  var copy: @Sendable (String) -> String
  static var placeholder: Clipboard { Clipboard(copy: unimplemented("Clipboard.copy", placeholder: "")) }
}

struct LiveClipboard: FeatureImplementation {
  init(context: Void, features: Features) throws {}
  var instance: Clipboard { Clipboard(copy: { $0 }) }
}

/// An error of the app that renders as Arbor's do.
struct Offline: DiagnosticError {
  var what: String
  var diagnostic: Diagnostic { Diagnostic(kind: "Offline", message: "\(what) needs the network") }
}
