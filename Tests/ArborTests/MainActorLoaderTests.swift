import Arbor
import ArborTestSupport
import Testing

/// A main-actor type, built by its own initialiser: what a main-actor loader exists to build.
@MainActor
private final class InboxScreenModel {
  let serial: Int
  var title = "Inbox"
  init(serial: Int) { self.serial = serial }
}

/// A feature built from a main-actor model.
private struct InboxScreen: CacheableFeature {
  var serial: Int
  var title: @MainActor @Sendable () -> String
  static var placeholder: InboxScreen { InboxScreen(serial: -1, title: { "" }) }
}

/// One inbox per account number.
private struct AccountScreen: CacheableFeature {
  typealias Context = Int
  var account: Int
  var serial: Int
  static var placeholder: AccountScreen { AccountScreen(account: -1, serial: -1) }
}

/// A new instance for every request.
private struct Toast: DisposableFeature {
  var serial: Int
  static var placeholder: Toast { Toast(serial: -1) }
}

/// An async cacheable that awaits the inbox once a test lets it go on.
private struct Digest: CacheableFeature {
  var inbox: Int
  static var placeholder: Digest { Digest(inbox: -1) }
}

/// A plain synchronous cacheable built from the inbox.
private struct Badge: CacheableFeature {
  var inbox: Int
  static var placeholder: Badge { Badge(inbox: -1) }
}

/// Where each loader and teardown ran: `true` for the main thread.
private final class Threads: Sendable {
  let loads = Collected<Bool>()
  let teardowns = Collected<Bool>()
  var loadCount: Int { loads.all.count }
}

extension InboxScreen {
  fileprivate static func live(_ threads: Threads) -> FeatureLoader {
    .cacheable(on: MainActor.self) { _ in
      threads.loads.append(MainQueue.isCurrent())
      let model = InboxScreenModel(serial: threads.loadCount)
      return InboxScreen(serial: model.serial, title: { model.title })
    } teardown: { _ in
      threads.teardowns.append(MainQueue.isCurrent())
    }
  }
}

/// The line `mainActorRoot` registers `InboxScreen.live` on.
private let registeredAt = #line + 4

private func mainActorRoot(_ threads: Threads) -> Features {
  FeaturesRoot { registry in
    registry.use(InboxScreen.live(threads))
    registry.use(
      .cacheable(on: MainActor.self) { (account: Int, _) in
        threads.loads.append(MainQueue.isCurrent())
        return AccountScreen(account: account, serial: InboxScreenModel(serial: threads.loadCount).serial)
      })
    registry.use(
      .disposable(on: MainActor.self) { _ in
        threads.loads.append(MainQueue.isCurrent())
        return Toast(serial: threads.loadCount)
      })
    registry.use(.cacheable { features in Badge(inbox: try features.instance(of: InboxScreen.self).serial) })
  }
}

@Suite struct MainActorLoaderTests {
  @MainActor @Test func aSynchronousRequestOnTheMainActorLoadsThereInPlace() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    let inbox = try synchronously { try root.instance(of: InboxScreen.self) }
    #expect(inbox.serial == 1)
    #expect(inbox.title() == "Inbox")
    let (again, account, toasts) = try synchronously {
      (
        try root.instance(of: InboxScreen.self), try root.instance(of: AccountScreen.self, context: 7),
        [try root.instance(of: Toast.self), try root.instance(of: Toast.self)]
      )
    }
    #expect(again.serial == 1)
    #expect(account.account == 7)
    #expect(toasts.map(\.serial) == [3, 4])  // a disposable: a new one each time
    #expect(threads.loads.all == [true, true, true, true])
    try await root.close()
  }

  @MainActor @Test func anAwaitedRequestOnTheMainActorLoadsThere() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    #expect(try await root.instance(of: InboxScreen.self).serial == 1)
    #expect(try await root.instance(of: AccountScreen.self, context: 3).account == 3)
    #expect(try await root.instance(of: Toast.self).serial == 3)
    #expect(threads.loads.all == [true, true, true])
    try await root.close()
  }

  @Test func anAwaitedRequestFromElsewhereHopsToTheMainActor() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    let (inbox, account, toast) = try await Task.detached {
      #expect(!MainQueue.isCurrent())
      return (
        try await root.instance(of: InboxScreen.self), try await root.instance(of: AccountScreen.self, context: 5),
        try await root.instance(of: Toast.self)
      )
    }.value
    #expect(inbox.serial == 1)
    #expect(account.account == 5)
    #expect(toast.serial == 3)
    #expect(threads.loads.all == [true, true, true])
    // Cached, it is served to a plain loader that requests it off the main actor.
    #expect(try await root.instance(of: Badge.self).inbox == 1)
    try await root.close()
  }

  @Test func aSynchronousRequestOffTheMainActorIsRefusedWithTheFix() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    let line = #line + 2
    let error = await Task.detached {
      #expect(throws: FeatureRequiresMainActor.self) { try synchronously { try root.instance(of: InboxScreen.self) } }
    }.value
    #expect(error?.feature == InboxScreen.self)
    #expect(
      error?.diagnostic.renderedTree() == """
        FeatureRequiresMainActor: InboxScreen loads on the main actor
        ├─ requested at: ArborTests/MainActorLoaderTests.swift:\(line)
        ├─ scope: Root
        ├─ implementation: InboxScreen.live(_:) registered at ArborTests/MainActorLoaderTests.swift:\(registeredAt) in Root
        └─ fix: request it with `try await features.instance()`, which runs its loader on the main actor,
                or make this request from the main actor,
                or load it once on the main actor before requests from elsewhere
        """)
    let disposableLine = #line + 2
    let disposable = await Task.detached {
      #expect(throws: FeatureRequiresMainActor.self) { try synchronously { try root.instance(of: Toast.self) } }
    }.value
    #expect(
      disposable?.description
        == "FeatureRequiresMainActor: Toast loads on the main actor (ArborTests/MainActorLoaderTests.swift:\(disposableLine))"
    )
    #expect(threads.loads.all.isEmpty)  // never run off the main actor
    // Loaded once on the main actor, the cacheable is served to synchronous requests from anywhere.
    _ = try await root.instance(of: InboxScreen.self)
    let served = try await Task.detached { try synchronously { try root.instance(of: InboxScreen.self).serial } }.value
    #expect(served == 1)
    #expect(threads.loads.all == [true])
    try await root.close()
  }

  @Test func aPlainLoaderRequestingItOffTheMainActorFailsWithTheMainActorCause() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    let error = await Task.detached {
      #expect(throws: FeatureLoadingFailed.self) { try synchronously { try root.instance(of: Badge.self) } }
    }.value
    #expect(
      error?.diagnostic.renderedTree().contains("FeatureRequiresMainActor: InboxScreen loads on the main actor") == true
    )
    #expect(threads.loads.all.isEmpty)
    // Requested from the main actor, the same plain loader loads, and the inbox with it.
    let badge = try await MainActor.run { try root.instance(of: Badge.self) }
    #expect(badge.inbox == 1)
    try await root.close()
  }

  @MainActor @Test func requestersRacingTheFirstLoadFromTheMainActorAndElsewhereGetOneInstance() async throws {
    for _ in 0..<20 {
      let threads = Threads()
      let root = mainActorRoot(threads)
      let awaited = (0..<8).map { _ in
        Task.detached { try await root.instance(of: InboxScreen.self).serial }
      }
      let here = try synchronously { try root.instance(of: InboxScreen.self).serial }
      for task in awaited { #expect(try await task.value == here) }
      #expect(threads.loads.all == [true])
      try await root.close()
    }
  }

  @MainActor @Test func theMainActorIsRefusedALoadInFlightThatNeedsItInsteadOfWaitingForIt() async throws {
    let threads = Threads()
    let started = Flag()
    let release = Flag()
    let root = FeaturesRoot { registry in
      registry.use(InboxScreen.live(threads))
      registry.use(
        .cacheable { features async throws in
          started.raise()
          _ = await release.suspendUntilRaised()
          return Digest(inbox: try await features.instance(of: InboxScreen.self).serial)
        })
    }
    let digest = Task.detached { try await root.instance(of: Digest.self) }
    #expect(await started.suspendUntilRaised())
    // The digest's load will need the main actor: waiting for it here could never end.
    #expect(throws: FeatureRequiresAwait.self) { try synchronously { try root.instance(of: Digest.self) } }
    release.raise()
    #expect(try await digest.value.inbox == 1)
    #expect(threads.loads.all == [true])
    try await root.close()
  }

  @Test func aTeardownRunsOnTheMainActorWhoeverCloses() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    _ = try await root.instance(of: InboxScreen.self)
    try await Task.detached { try await root.close() }.value
    #expect(threads.teardowns.all == [true])
  }

  @MainActor @Test func aSessionBranchLoadsItsOwnInstanceOnTheMainActorAndTearsItDownThere() async throws {
    let threads = Threads()
    let root = FeaturesRoot { registry in
      registry.defineScope(InboxSession.self) { registry in registry.use(InboxScreen.live(threads)) }
    }
    let ann = try root.branch(InboxSession.self, context: "ann")
    let bob = try root.branch(InboxSession.self, context: "bob")
    #expect(try synchronously { try ann.instance(of: InboxScreen.self).serial } == 1)
    #expect(try await bob.instance(of: InboxScreen.self).serial == 2)
    try await ann.close()
    #expect(threads.teardowns.all == [true])
    #expect(try synchronously { try bob.instance(of: InboxScreen.self).serial } == 2)
    try await root.close()
    #expect(threads.teardowns.all == [true, true])
  }

  @MainActor @Test func anExpiredOrRefreshedInstanceIsLoadedAgainOnTheMainActorAndTornDownThere() async throws {
    let threads = Threads()
    let clock = ManualClock()
    let root = FeaturesRoot(clock: clock) { registry in
      registry.use(
        .cacheable(on: MainActor.self, timeToLive: .seconds(60)) { _ in
          threads.loads.append(MainQueue.isCurrent())
          return InboxScreen(serial: InboxScreenModel(serial: threads.loadCount).serial, title: { "" })
        } teardown: { _ in
          threads.teardowns.append(MainQueue.isCurrent())
        })
    }
    #expect(try synchronously { try root.instance(of: InboxScreen.self).serial } == 1)
    clock.advance(by: .seconds(60))
    // Expired: not cached any more, so a synchronous request off the main actor is refused, and
    // an awaited one hops to load it there.
    let refused = await Task.detached {
      #expect(throws: FeatureRequiresMainActor.self) { try synchronously { try root.instance(of: InboxScreen.self) } }
    }.value
    #expect(refused != nil)
    #expect(try await Task.detached { try await root.instance(of: InboxScreen.self).serial }.value == 2)
    _ = try await Task.detached { try await root.refresh(InboxScreen.self) }.value
    #expect(try await Task.detached { try await root.instance(of: InboxScreen.self).serial }.value == 3)
    try await root.close()
    #expect(threads.loads.all == [true, true, true])
    #expect(threads.teardowns.all == [true, true, true])
  }

  @Test func aClosedBranchRefusesAnAwaitedRequestBeforeAnyHop() async throws {
    let threads = Threads()
    let root = FeaturesRoot { registry in
      registry.defineScope(InboxSession.self) { registry in registry.use(InboxScreen.live(threads)) }
    }
    let ann = try root.branch(InboxSession.self, context: "ann")
    try await ann.close()
    await #expect(throws: FeaturesClosed.self) {
      try await Task.detached { try await ann.instance(of: InboxScreen.self) }.value
    }
    #expect(threads.loads.all.isEmpty)
    try await root.close()
  }

  @Test func anAsyncMainActorLoaderRunsThereAndOnlyWhenAwaited() async throws {
    let threads = Threads()
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(on: MainActor.self) { features async throws in
          threads.loads.append(MainQueue.isCurrent())
          await Task.yield()
          return Digest(inbox: InboxScreenModel(serial: 9).serial)
        } teardown: { _ in
          threads.teardowns.append(MainQueue.isCurrent())
        })
    }
    #expect(throws: FeatureRequiresAwait.self) { try synchronously { try root.instance(of: Digest.self) } }
    #expect(try await Task.detached { try await root.instance(of: Digest.self).inbox }.value == 9)
    try await root.close()
    #expect(threads.loads.all == [true])
    #expect(threads.teardowns.all == [true])
  }

  @Test func anEagerMainActorFeatureStartsOnTheMainActor() async throws {
    let threads = Threads()
    let root = FeaturesRoot { registry in registry.use(InboxScreen.live(threads), eager: true) }
    _ = try await Task.detached { try await root.start() }.value
    #expect(threads.loads.all == [true])
    try await root.close()
    #expect(threads.teardowns.all == [true])
  }

  @Test func validationRunsMainActorLoadersThereAndTheGraphSaysSo() async throws {
    let threads = Threads()
    let root = mainActorRoot(threads)
    let validation = await Task.detached { await root.validate() }.value
    #expect(validation.problems.isEmpty)
    #expect(threads.loads.all.allSatisfy { $0 })
    #expect(
      validation.graph.nodes.filter(\.runsOnMainActor).map(\.feature) == ["InboxScreen", "AccountScreen", "Toast"])
    #expect(validation.graph.mermaid().contains("InboxScreen<br/>cacheable, main actor · InboxScreen.live(_:)"))
    #expect(validation.graph.dot().contains("cacheable, main actor · InboxScreen.live(_:)"))
    #expect(validation.graph.json().contains(#""mainActor": true"#))
    #expect(
      root.which(InboxScreen.self).summary()
        == "InboxScreen is served by InboxScreen.live(_:) (cacheable, main actor), registered at "
        + "ArborTests/MainActorLoaderTests.swift:\(registeredAt) in Root")
    #expect(root.which(InboxScreen.self).json().contains(#""runsOnMainActor": true"#))
    #expect(root.which(Badge.self).implementation?.runsOnMainActor == false)
    #expect(threads.teardowns.all.allSatisfy { $0 })  // validation tears down what it loaded
  }

  @MainActor @Test func aProfileSaysWhichLoadsRanOnTheMainActor() async throws {
    let threads = Threads()
    let profile = LoadProfile()
    let root = FeaturesRoot(observer: profile) { registry in
      registry.use(InboxScreen.live(threads))
      registry.use(.cacheable { features in Badge(inbox: try features.instance(of: InboxScreen.self).serial) })
    }
    _ = try synchronously { try root.instance(of: Badge.self) }
    try await root.close()
    let report = profile.report()
    #expect(report.contains("InboxScreen.live(_:) in Root on the main actor: "))
    #expect(profile.loads.map(\.runsOnMainActor) == [true, false])
    #expect(profile.chromeTrace().contains(#""cat":"main-actor load""#))
  }
}

private enum InboxSession: FeaturesScope { typealias Context = String }
