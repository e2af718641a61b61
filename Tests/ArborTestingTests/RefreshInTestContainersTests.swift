import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import ArborTesting
import Testing

/// `refresh` and time-to-live in test containers: a copy of a tree renews its own instances, with
/// the instances built from them, and never the tree's; a patched or placeholder feature renews
/// nothing.
@Suite struct RefreshInTestContainersTests {
  struct Token: CacheableFeature {
    var value: Int
    static var placeholder: Token { Token(value: -1) }
  }

  struct Client: CacheableFeature {
    var token: Int
    static var placeholder: Client { Client(token: -1) }
  }

  /// How many tokens were loaded.
  final class Loads: Sendable {
    private let count = Lock.make(0)
    func next() -> Int {
      count.withLock { count in
        count += 1
        return count
      }
    }
    var total: Int { count.withLock { $0 } }
  }

  /// A token counted by `loads`, and a session's client built on it.
  static func tree(_ loads: Loads, clock: TestClock = TestClock()) -> Features {
    FeaturesRoot(clock: clock) { registry in
      registry.use(.cacheable(implementation: "live()", timeToLive: .seconds(60)) { _ in Token(value: loads.next()) })
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in Client(token: try features.instance(of: Token.self).value)
          }
        )
      }
    }
  }

  @Test func aRefreshInACopyRenewsTheCopysInstancesAndNeverTheTrees() async throws {
    let loads = Loads()
    let root = Self.tree(loads)
    #expect(try await root.instance(of: Token.self).value == 1)
    let copy = TestFeatures(root)
    let session = try copy.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instance(of: Client.self).token == 2)
    let renewed = try await copy.refresh(Token.self)
    #expect(
      renewed.map(\.description) == [
        #"Client (Client.live()) in Root › SessionScope(Session(user: "ann"))"#, "Token (Token.live()) in Root",
      ])
    #expect(try await session.instance(of: Client.self).token == 3)
    #expect(try await root.instance(of: Token.self).value == 1)
    try await copy.close()
    try await root.close()
  }

  @Test func anExpiredInstanceOfACopyIsRenewedOnTheTreesClock() async throws {
    let loads = Loads()
    let clock = TestClock()
    let copy = TestFeatures(Self.tree(loads, clock: clock))
    let session = try copy.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instance(of: Client.self).token == 1)
    clock.advance(by: .seconds(59))
    #expect(try await session.instance(of: Client.self).token == 1)
    clock.advance(by: .seconds(1))
    // A client's cached read does not look at its token's age: the request for the token does, and
    // renews the client with it, in a task of its own: the request pays for the token alone.
    #expect(try await session.instance(of: Client.self).token == 1)
    #expect(try await session.instance(of: Token.self).value == 2)
    #expect(await eventually(asking: { try await session.instance(of: Client.self).token == 2 }))
    try await copy.close()
  }

  @Test func aPatchedFeatureOfACopyRenewsNothing() async throws {
    let loads = Loads()
    let copy = TestFeatures(Self.tree(loads))
    copy.use(Token(value: 42))
    let session = try copy.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instance(of: Client.self).token == 42)
    #expect(try await copy.refresh(Token.self).isEmpty)
    #expect(try await session.instance(of: Client.self).token == 42)
    #expect(loads.total == 0)
    try await copy.close()
  }

  @Test func aPlaceholderRenewsNothing() async throws {
    let features = TestFeatures()
    #expect(try await features.refresh(Token.self).isEmpty)
    #expect(try await features.refresh(Printer.self).isEmpty)
    #expect(try await features.instance(of: Token.self).value == -1)
  }

  @Test func aDisposableOfACopyCannotBeRefreshed() async throws {
    let copy = TestFeatures(Self.tree(Loads()))
    let error = await #expect(throws: FeatureNotRenewable.self) { try await copy.refresh(Printer.self) }
    #expect(error?.diagnostic.message == "Printer caches no instance to refresh: it is disposable")
  }

  @Test func aClosedContainerCannotBeRefreshed() async throws {
    let features = TestFeatures()
    try await features.close()
    await #expect(throws: FeaturesClosed.self) { try await features.refresh(Token.self) }
  }

  /// A loader under test is lifecycle work: a refresh or a start there throws
  /// `LifecycleWorkReentered` at once, naming the loader, and nothing is renewed.
  @Test(arguments: ["refresh", "start"])
  func aRefreshOrStartInALoaderUnderTestIsRefused(call: String) async throws {
    let loads = Loads()
    let copy = TestFeatures(Self.tree(loads))
    #expect(try await copy.instance(of: Token.self).value == 1)
    let answers = Lock.make([String]())
    let loader = FeatureLoader.cacheable(implementation: "refreshing()") { (features: Features) async throws in
      do {
        if call == "refresh" { _ = try await features.refresh(Token.self) } else { try await features.start() }
        answers.withLock { $0.append("returned") }
      } catch {
        answers.withLock { $0.append((error as? any DiagnosticError)?.diagnostic.message ?? "\(error)") }
      }
      return Client(token: 0)
    }
    let _: Client = try await copy.load(loader)
    let expected = call == "refresh" ? "refresh(Token)" : "start()"
    #expect(answers.withLock { $0 } == ["\(expected) cannot run inside the loader of Client"])
    #expect(try await copy.instance(of: Token.self).value == 1)
    #expect(loads.total == 1)
    try await copy.close()
  }
}

/// `TestFeatures(_:clock:)`: a copy whose instances age on the test's clock, whatever the tree's.
@Suite struct CopyWithAClockTests {
  typealias Token = RefreshInTestContainersTests.Token
  typealias Client = RefreshInTestContainersTests.Client

  enum RequestScope: FeaturesScope { typealias Context = Int }

  /// The tree of ``RefreshInTestContainersTests``, on a `ContinuousClock`, with a request scope
  /// defined at the root and branched below sessions.
  static func tree(_ loads: RefreshInTestContainersTests.Loads) -> Features {
    FeaturesRoot { registry in
      registry.use(.cacheable(implementation: "live()", timeToLive: .seconds(60)) { _ in Token(value: loads.next()) })
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in Client(token: try features.instance(of: Token.self).value)
          }
        )
      }
      registry.defineScope(RequestScope.self) { _ in }
    }
  }

  @Test func aCopyAgesItsInstancesOnTheTestsClockAndTheTreeKeepsItsOwn() async throws {
    let loads = RefreshInTestContainersTests.Loads()
    let root = Self.tree(loads)
    #expect(try await root.instance(of: Token.self).value == 1)
    let clock = TestClock()
    let copy = TestFeatures(root, clock: clock)
    #expect(try await copy.instance(of: Token.self).value == 2)
    clock.advance(by: .seconds(60))
    #expect(try await copy.instance(of: Token.self).value == 3)
    #expect(try await root.instance(of: Token.self).value == 1)
    #expect(copy.which(Token.self).implementation?.instance?.loadedAt == .seconds(60))
    try await copy.close()
    try await root.close()
  }

  @Test func aCopyOfABranchKeepsItsScopesNestedAndDerived() async throws {
    let root = Self.tree(RefreshInTestContainersTests.Loads())
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let request = try session.branch(RequestScope.self, context: 7)
    let clock = TestClock()
    let copy = TestFeatures(request, clock: clock)
    #expect(try copy.context(for: RequestScope.self) == 7)
    #expect(try copy.context(for: SessionScope.self) == Session(user: "ann"))
    #expect(try await copy.instance(of: Client.self).token == 1)
    clock.advance(by: .seconds(60))
    #expect(try await copy.instance(of: Token.self).value == 2)
    #expect(await eventually(asking: { try await copy.instance(of: Client.self).token == 2 }))
    // The copied session branches its scopes as the tree's does.
    let other = try copy.branch(RequestScope.self, context: 8)
    #expect(try other.context(for: RequestScope.self) == 8)
    try await copy.close()
    try await root.close()
  }

  @Test func aCopyOfATestContainerTakesAClockToo() throws {
    let container = TestFeatures()
    container.use(Token(value: 9))
    let copy = TestFeatures(container, clock: TestClock())
    #expect(try copy.instance(of: Token.self).value == 9)
    let session = try copy.branch(SessionScope.self, context: Session(user: "bob"))
    #expect(try session.context(for: SessionScope.self) == Session(user: "bob"))
  }
}
