import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import ArborTesting
import Testing

/// Refresh and time-to-live in test containers: a copy of a real tree renews what its own loaders
/// cached, never the tree's; a patched or replaced feature, and what `load` made, are not cached,
/// so a refresh renews nothing. A copy measures ages on the clock of the tree it copies.
@Suite struct RenewalTestContainerTests {
  struct Token: CacheableFeature {
    var serial: Int
    static var placeholder: Token { Token(serial: -1) }
  }

  struct Client: CacheableFeature {
    var token: Int
    static var placeholder: Client { Client(token: -1) }
  }

  static func token(_ log: Lines, timeToLive: Duration? = nil) -> FeatureLoader {
    let serial = Lock.make(0)
    return .cacheable(implementation: "live()", timeToLive: timeToLive) { _ in
      let next = serial.withLock {
        $0 += 1
        return $0
      }
      log.append("up token \(next)")
      return Token(serial: next)
    } teardown: { token in
      log.append("down token \(token.serial)")
    }
  }

  /// A token in the root; per session, a client built on it.
  static func tree(_ log: Lines, clock: TestClock = TestClock(), timeToLive: Duration? = nil) -> Features {
    FeaturesRoot(clock: clock) { registry in
      registry.use(token(log, timeToLive: timeToLive))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable(implementation: "live()") { features in
            let token = try features.instance(of: Token.self)
            log.append("up client \(token.serial)")
            return Client(token: token.serial)
          } teardown: { client in
            log.append("down client \(client.token)")
          })
      }
    }
  }

  static let ann = #"Root › SessionScope(Session(user: "ann"))"#

  @Test func aCopyOfATreeRenewsWhatItsLoadersCachedAndNotTheTrees() async throws {
    let treeLog = Lines()
    let root = Self.tree(treeLog)
    let original = try root.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await original.instance(of: Client.self).token == 1)
    let copy = TestFeatures(original)
    #expect(try await copy.instance(of: Client.self).token == 2)

    let renewed = try await copy.refresh(Token.self)

    #expect(renewed.map(\.description) == ["Client (Client.live()) in \(Self.ann)", "Token (Token.live()) in Root"])
    #expect(treeLog.all == ["up token 1", "up client 1", "up token 2", "up client 2", "down client 2", "down token 2"])
    #expect(try await copy.instance(of: Client.self).token == 3)
    #expect(try await original.instance(of: Client.self).token == 1)
    #expect(copy.tornDown.map(\.name) == ["Client", "Token"])
    try await copy.close()
    try await root.close()
  }

  @Test func aPatchedOrReplacedFeatureIsNotCachedSoARefreshRenewsNothing() async throws {
    let log = Lines()
    let copy = TestFeatures(Self.tree(log))
    copy.use(Token(serial: 99))
    let session = try copy.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instance(of: Client.self).token == 99)
    #expect(try await session.refresh(Token.self).isEmpty)
    #expect(try await session.instance(of: Client.self).token == 99)

    let patched = TestFeatures(Self.tree(log))
    patched.patch(\Token.serial, with: 7)
    #expect(try await patched.instance(of: Token.self).serial == 7)
    #expect(try await patched.refresh(Token.self).isEmpty)
    #expect(log.all == ["up client 99"])
    try await copy.close()
    try await patched.close()
  }

  @Test func whatLoadMadeIsNotCachedSoARefreshRenewsNothingAndItsTeardownRunsAtClose() async throws {
    let log = Lines()
    let features = TestFeatures()
    let token: Token = try await features.load(Self.token(log))
    #expect(token.serial == 1)
    #expect(try await features.refresh(Token.self).isEmpty)
    #expect(try await features.refresh(Client.self).isEmpty)
    #expect(log.all == ["up token 1"])
    try await features.close()
    #expect(log.all == ["up token 1", "down token 1"])
    await #expect(throws: FeaturesClosed.self) { try await features.refresh(Token.self) }
  }

  @Test func aCopyMeasuresAgesOnTheClockOfTheTreeItCopies() async throws {
    let log = Lines()
    let clock = TestClock()
    let copy = TestFeatures(Self.tree(log, clock: clock, timeToLive: .seconds(60)))
    let session = try copy.branch(SessionScope.self, context: Session(user: "ann"))
    #expect(try await session.instance(of: Client.self).token == 1)
    clock.advance(by: .seconds(59))
    #expect(try await copy.instance(of: Token.self).serial == 1)
    clock.advance(by: .seconds(1))
    #expect(try await copy.instance(of: Token.self).serial == 2)
    #expect(await eventually(asking: { try await session.instance(of: Client.self).token == 2 }))
    // The expired instances' teardowns run in a task of their own: waited for, a minute at most.
    let tornDown: @Sendable () -> Bool = { log.all.contains("down token 1") && log.all.contains("down client 1") }
    for _ in 0..<60_000 where !tornDown() { try await Task.sleep(for: .milliseconds(1)) }
    #expect(tornDown())
    try await copy.close()
  }
}
