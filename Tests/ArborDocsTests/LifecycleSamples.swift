// The code samples of Sources/Core/Arbor.docc/Lifecycle.md (and the README's lifecycle section), compiled and run by
// the test suite. Every ```swift block of that guide must appear verbatim in this file or in
// Tests/ArborTestingTests/Docs (DocsSamplesTests checks it).
import Arbor
import Foundation
import Synchronization
import Testing

// sample: a teardown
struct Store: CacheableFeature {
  var save: @Sendable (String) async throws -> Void
  var close: @Sendable () async -> Void
  static var placeholder: Store { Store(save: unimplemented("Store.save"), close: unimplemented("Store.close")) }
}

extension Store {
  static func pooled() -> FeatureLoader {
    .cacheable { features async throws in
      let pool = try await StorePool.connect()
      return Store(save: { try await pool.save($0) }, close: { await pool.close() })
    } teardown: { store in
      await store.close()
    }
  }
}
// end

// sample: a request's transaction
struct HTTPRequest: Sendable {
  var id: Int
  var path: String
}

enum HTTPRequestScope: FeaturesScope { typealias Context = HTTPRequest }

struct Transaction: CacheableFeature {
  var write: @Sendable (String) async throws -> Void
  var commit: @Sendable () async throws -> Void
  static var placeholder: Transaction {
    Transaction(write: unimplemented("Transaction.write"), commit: unimplemented("Transaction.commit"))
  }
}

extension Transaction {
  static func begun() -> FeatureLoader {
    .cacheable { features async throws in
      let store: Store = try await features.instance()
      let request = try features.context(for: HTTPRequestScope.self)
      let pending = Mutex<[String]>([])
      StorePool.log("begin \(request.id)")
      return Transaction(
        write: { line in pending.withLock { $0.append(line) } },
        commit: { for line in pending.withLock({ $0 }) { try await store.save(line) } })
    } teardown: { transaction in
      try await transaction.commit()
    }
  }
}
// end

// sample: per request
func handle(_ request: HTTPRequest, in root: Features) async throws -> String {
  try await root.withBranch(HTTPRequestScope.self, context: request) { features in
    let transaction: Transaction = try await features.instance()
    try await transaction.write(request.path)
    return "handled \(request.path)"
  }  // the request's branch is closed here: its transaction is committed
}
// end

// sample: shutdown
func serve(_ requests: [HTTPRequest]) async throws {
  let root = FeaturesRoot { registry in
    registry.use(Store.pooled())
    registry.defineScope(HTTPRequestScope.self) { registry in
      registry.use(Transaction.begun())
    }
  }
  for request in requests {
    _ = try await handle(request, in: root)
  }
  try await root.close()  // on shutdown: open branches first, then the pool
}
// end

// sample: failed teardowns
func shutDown(_ root: Features) async {
  do {
    try await root.close()
  } catch let error as TeardownFailed {
    for failure in error.failures {
      StorePool.log("\(failure.feature) (\(failure.implementation)) failed to close: \(failure.cause)")
    }
  } catch {
    StorePool.log("\(error)")
  }
}
// end

// sample: your reporter
func installReporter() {
  IssueReporting.install { report in
    let site = report.site.map { "\($0)" } ?? "unknown site"
    StorePool.log("\(report.severity) \(report.kind) at \(site): \(report.diagnostic.message)")
  }
}
// end

// sample: start
enum Migrations {
  static func run(on store: Store) async throws {
    try await store.save("schema v2")
  }
}

func startServing() async throws -> Features {
  let root = FeaturesRoot { registry in
    // Opened by start(), before the first request; closed within five seconds on shutdown.
    registry.use(Store.pooled(), eager: true, startTimeLimit: .seconds(10), teardownTimeLimit: .seconds(5))
    registry.beforeServing { features in
      try await Migrations.run(on: features.instance(of: Store.self))
    }
  }
  try await root.start(timeout: .seconds(30))  // throws FeaturesStartFailed, and closes the root
  return root
}
// end

// sample: a teardown that signs out
enum AccountScope: FeaturesScope { typealias Context = String }

struct SignOut: CacheableFeature {
  var run: @Sendable () async throws -> Void
  static var placeholder: SignOut { SignOut(run: unimplemented("SignOut.run")) }
}

func accounts(of root: Features) -> KeyedBranches<String, AccountScope> {
  KeyedBranches(AccountScope.self, of: root) { user in user }
}

extension SignOut {
  /// Evicting the account's own key closes the branch this teardown runs in: that close returns at
  /// once, and the close already running ends the branch.
  static func evicting(from accounts: @escaping @Sendable () -> KeyedBranches<String, AccountScope>) -> FeatureLoader {
    .cacheable { features in
      let user = try features.context(for: AccountScope.self)
      return SignOut(run: { try await accounts().evict(user) })
    } teardown: { signOut in
      try await signOut.run()
    }
  }
}
// end

// sample: a teardown that closes its own root
enum KioskScope: FeaturesScope { typealias Context = Void }

struct Kiosk: CacheableFeature {
  var shutDown: @Sendable () async throws -> Void
  static var placeholder: Kiosk { Kiosk(shutDown: unimplemented("Kiosk.shutDown")) }
}

extension Kiosk {
  /// When the kiosk's session ends, the whole app goes: the root's close starts, and this teardown
  /// returns at once.
  static func shuttingDownTheApp(root: @escaping @Sendable () -> Features) -> FeatureLoader {
    .cacheable { _ in
      Kiosk(shutDown: { try await root().close() })
    } teardown: { kiosk in
      try await kiosk.shutDown()
    }
  }
}
// end

// sample: a teardown that refreshes
struct Uploads: CacheableFeature {
  var finish: @Sendable () async throws -> Void
  static var placeholder: Uploads { Uploads(finish: unimplemented("Uploads.finish")) }
}

extension Uploads {
  /// Renewing the token from a teardown throws LifecycleWorkReentered: refresh it after the close.
  static func renewingTheTokenOnClose() -> FeatureLoader {
    .cacheable { features in
      Uploads(finish: { _ = try await features.refresh(SessionToken.self) })
    } teardown: { uploads in
      try await uploads.finish()
    }
  }
}
// end

/// A stand-in for a real connection pool: it logs what it does, for the test to read.
struct StorePool: Sendable {
  static let events = Mutex<[String]>([])

  static func log(_ event: String) {
    events.withLock { $0.append(event) }
  }

  static func connect() async throws -> StorePool {
    log("connect")
    return StorePool()
  }

  func save(_ line: String) async throws {
    Self.log("save \(line)")
  }

  func close() async {
    Self.log("close pool")
  }
}

@Suite(.serialized) struct LifecycleSamplesTests {
  @Test func aServerCommitsEachRequestAndClosesThePoolOnShutdown() async throws {
    StorePool.events.withLock { $0 = [] }
    try await serve([HTTPRequest(id: 1, path: "/a"), HTTPRequest(id: 2, path: "/b")])
    #expect(
      StorePool.events.withLock { $0 } == [
        "connect", "begin 1", "save /a", "begin 2", "save /b", "close pool",
      ])
  }

  @Test func aFailedTeardownIsReadFromTheError() async throws {
    StorePool.events.withLock { $0 = [] }
    let root = FeaturesRoot { registry in
      registry.use(
        .cacheable(implementation: "failing()") { _ in
          Store.placeholder
        } teardown: { _ in
          throw Busy()
        })
    }
    _ = try await root.instance(of: Store.self)
    await shutDown(root)
    #expect(StorePool.events.withLock { $0 } == ["Store (Store.failing()) failed to close: busy"])
  }

  @Test func aTeardownThatEvictsItsOwnAccountEndsWithTheRootsClose() async throws {
    let kept = Mutex<KeyedBranches<String, AccountScope>?>(nil)
    // The tree's loader reaches the set, which keeps the tree: let go of it, or neither is freed.
    defer { kept.withLock { $0 = nil } }
    let root = FeaturesRoot { registry in
      registry.defineScope(AccountScope.self) { registry in
        registry.use(SignOut.evicting(from: { kept.withLock { $0! } }))
      }
    }
    let sessions = accounts(of: root)
    kept.withLock { $0 = sessions }
    try await sessions.withBranch(for: "ann") { account in _ = try await account.instance(of: SignOut.self) }
    // Closes ann's branch, whose teardown evicts "ann": bounded, so that a close waiting for
    // itself fails the test instead of hanging it.
    let closed = Mutex(false)
    Task {
      try await root.close()
      closed.withLock { $0 = true }
    }
    for _ in 0..<30_000 where !closed.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
    #expect(closed.withLock { $0 })
    await #expect(throws: FeaturesClosed.self) { try await sessions.branch(for: "ann") }
  }

  @Test func aTeardownThatClosesItsOwnRootReturnsAtOnceAndTheRootClosesAfter() async throws {
    StorePool.events.withLock { $0 = [] }
    let kept = Mutex<Features?>(nil)
    defer { kept.withLock { $0 = nil } }  // the loader reaches the root: let go, or it is never freed
    let root = FeaturesRoot { registry in
      registry.use(Store.pooled())
      registry.defineScope(KioskScope.self) { registry in
        registry.use(Kiosk.shuttingDownTheApp(root: { kept.withLock { $0! } }))
      }
    }
    kept.withLock { $0 = root }
    _ = try await root.instance(of: Store.self)
    let kiosk = try root.branch(KioskScope.self)
    _ = try await kiosk.instance(of: Kiosk.self)
    // The kiosk's teardown starts the root's close and returns: the kiosk's close ends.
    try await kiosk.close()
    // A close from outside joins the root's and waits for it: the pool is closed after the kiosk.
    try await root.close()
    #expect(StorePool.events.withLock { $0 } == ["connect", "close pool"])
    await #expect(throws: FeaturesClosed.self) { try await root.instance(of: Store.self) }
  }

  @Test func aTeardownThatRefreshesIsRefusedAndTheCloseSaysWhy() async throws {
    let root = FeaturesRoot { registry in
      registry.use(SessionToken.stored())
      registry.defineScope(KioskScope.self) { registry in
        registry.use(Uploads.renewingTheTokenOnClose(), file: "App/Main.swift", line: 12)
      }
    }
    let kiosk = try root.branch(KioskScope.self)
    _ = try await kiosk.instance(of: Uploads.self)
    let error = await #expect(throws: TeardownFailed.self) { try await kiosk.close(file: "App/Main.swift", line: 30) }
    #expect(
      error.map { String(reflecting: $0) } == """
        TeardownFailed: 1 teardown failed while closing Root › KioskScope
        ├─ requested at: App/Main.swift:30
        ├─ fix: handle the error in the teardown, or let it throw and read it here:
        │       every other teardown ran, and the branch is closed
        └─ cause: LifecycleWorkReentered: refresh(SessionToken) cannot run inside the teardown of Uploads \
        (Uploads.renewingTheTokenOnClose() at ArborDocsTests/LifecycleSamples.swift:185, registered at App/Main.swift:12)
           ├─ requested at: ArborDocsTests/LifecycleSamples.swift:186
           ├─ scope: Root › KioskScope
           ├─ torn down: Uploads (Uploads.renewingTheTokenOnClose() at ArborDocsTests/LifecycleSamples.swift:185, \
        registered at App/Main.swift:12)
           └─ fix: refresh SessionToken after that work ends, or from a task outside it: lifecycle work (a loader, a teardown,
                   a before-serving work, a keyed branch's making) never waits for a refresh or a start
        """)
  }

  @Test func aServerStartsItsStoreAndMigratesBeforeServing() async throws {
    StorePool.events.withLock { $0 = [] }
    let root = try await startServing()
    #expect(StorePool.events.withLock { $0 } == ["connect", "save schema v2"])
    try await root.close()
    #expect(StorePool.events.withLock { $0 } == ["connect", "save schema v2", "close pool"])
  }

  struct Busy: Error, CustomStringConvertible {
    var description: String { "busy" }
  }

  @Test func theInstalledReporterReceivesWhatNoTestTook() {
    StorePool.events.withLock { $0 = [] }
    installReporter()
    defer { IssueReporting.install(nil) }
    let close: @Sendable () -> Void = unimplemented("Store.close", file: "App/Store.swift", line: 4)
    let done = DispatchSemaphore(value: 0)
    // A thread of its own, where no test runs: the test framework's reporter declines it.
    Thread {
      close()
      done.signal()
    }.start()
    done.wait()
    #expect(
      StorePool.events.withLock { $0 }.filter { $0.contains("Store.close") } == [
        "failure FeatureUnimplemented at App/Store.swift:4: Unimplemented: Store.close"
      ])
  }
}
