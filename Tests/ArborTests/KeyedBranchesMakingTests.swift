import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Synchronization
import Testing

/// A set's context closure (a keyed branch's making) is lifecycle work, which never waits for
/// lifecycle work: an `evict` or `close` there returns at once, and a request for any keyed branch
/// there throws `KeyedBranchesCycle`.
@Suite struct KeyedBranchesMakingTests {
  /// A tree with a session scope that loads nothing.
  var root: Features { FeaturesRoot { registry in registry.defineScope(SessionScope.self) { _ in } } }

  /// The evict returns at once, without waiting for the branch being made; the eviction goes on,
  /// and evicts the branch (closing it) once it is made and its request ended.
  @Test func aContextThatEvictsItsOwnKeyReturnsAtOnceAndTheBranchIsEvictedOnceMade() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let evicted = Flag()
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      try await later.get.evict(user)  // its branch is being made: this waits for nothing
      evicted.raise()
      return Session(user: user)
    }
    later.set(sessions)
    let made = Lock<(Session, Features)?>.make(nil)
    #expect(
      await ends {
        try await sessions.withBranch(for: "ann") { session in
          made.withLock { $0 = (try! session.context(for: SessionScope.self), session) }
        }
      })
    #expect(evicted.isRaised)
    let (session, branch) = try #require(made.withLock { $0 })
    #expect(session == Session(user: "ann"))
    #expect(await eventually { sessions.count == 0 })
    #expect(await eventually { (try? branch.context(ifPresent: SessionScope.self)) == nil })
    #expect(throws: FeaturesClosed.self) { try branch.context(ifPresent: SessionScope.self) }
    try await sessions.close()
  }

  /// The set's close returns at once; the branch being made is closed once made, and its request
  /// is refused.
  @Test func aContextThatClosesItsSetReturnsAtOnceAndItsRequestIsRefused() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      try await later.get.close()
      return Session(user: user)
    }
    later.set(sessions)
    #expect(
      await ends {
        await #expect(throws: KeyedBranchesClosed.self) { try await sessions.withBranch(for: "ann") { _ in } }
      })
    #expect(sessions.count == 0)
    await #expect(throws: KeyedBranchesClosed.self) { try await sessions.withBranch(for: "bob") { _ in } }
  }

  @Test func aContextThatRequestsItsOwnKeyFailsWithTheCycle() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let requestedAt = #line + 2
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      _ = try await later.get.branch(for: user)
      return Session(user: user)
    }
    later.set(sessions)
    let error = await #expect(throws: KeyedBranchesCycle.self) { try await sessions.branch(for: "ann") }
    #expect(
      error.map { String(reflecting: $0) } == """
        KeyedBranchesCycle: cannot branch SessionScope for "ann": the request is made inside the making of the SessionScope branch for "ann"
        ├─ requested at: ArborTests/KeyedBranchesMakingTests.swift:\(requestedAt)
        └─ fix: make the context without keyed branches: a context closure, and the work it starts, run before its branch exists;
                request other keys' branches once the making ended
        """)
    #expect(sessions.count == 0)  // the failed making is forgotten: the next request tries again
    try await sessions.close()
  }

  @Test func twoKeysWhoseContextsRequestEachOtherFailWithTheCycle() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      _ = try await later.get.branch(for: user == "ann" ? "bob" : "ann")
      return Session(user: user)
    }
    later.set(sessions)
    await #expect(throws: KeyedBranchesCycle.self) { try await sessions.branch(for: "ann") }
    #expect(sessions.count == 0)
    try await sessions.close()
  }

  @Test func twoKeysRequestedAtOnceWhoseContextsRequestEachOtherFailWithTheCycle() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let (annMaking, bobMaking) = (Flag(), Flag())
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      // Both makings run before either asks for the other.
      (user == "ann" ? annMaking : bobMaking).raise()
      _ = await (user == "ann" ? bobMaking : annMaking).suspendUntilRaised()
      _ = try await later.get.branch(for: user == "ann" ? "bob" : "ann")
      return Session(user: user)
    }
    later.set(sessions)
    let ann = Task { try await sessions.branch(for: "ann") }
    let bob = Task { try await sessions.branch(for: "bob") }
    #expect(await ends { await #expect(throws: KeyedBranchesCycle.self) { try await ann.value } })
    #expect(await ends { await #expect(throws: KeyedBranchesCycle.self) { try await bob.value } })
    #expect(sessions.count == 0)
    try await sessions.close()
  }

  /// A making never waits for a making, not even another key's: the request fails at once, naming
  /// both keys, and nothing is kept; outside a making, both keys are served.
  @Test func aContextThatRequestsAnotherKeyFailsWithTheCycle() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let requestedAt = #line + 2
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      if user == "ann" { _ = try await later.get.branch(for: "bob") }
      return Session(user: user)
    }
    later.set(sessions)
    let error = await #expect(throws: KeyedBranchesCycle.self) { try await sessions.branch(for: "ann") }
    #expect(
      error?.diagnostic.message
        == #"cannot branch SessionScope for "bob": the request is made inside the making of the SessionScope branch for "ann""#
    )
    #expect(error?.diagnostic.location?.description == "ArborTests/KeyedBranchesMakingTests.swift:\(requestedAt)")
    #expect(sessions.count == 0)
    _ = try await sessions.branch(for: "bob")
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  /// Any keyed set's request is refused in a making, not only the making set's own.
  @Test func aContextThatRequestsABranchOfAnotherSetFailsWithTheCycle() async throws {
    let root = root
    let accounts = KeyedBranches(SessionScope.self, of: root) { (user: String) in Session(user: user) }
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      _ = try await accounts.branch(for: user)
      return Session(user: user)
    }
    let error = await #expect(throws: KeyedBranchesCycle.self) { try await sessions.branch(for: "ann") }
    #expect(
      error?.diagnostic.message
        == #"cannot branch SessionScope for "ann": the request is made inside the making of the SessionScope branch for "ann""#
    )
    #expect(sessions.count == 0)
    #expect(accounts.count == 0)
    try await sessions.close()
    try await accounts.close()
  }
}

extension KeyedBranchesMakingTests {
  @Test func workTheContextStartsIsPartOfTheMakingAndDetachedWorkWaitsForTheBranch() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let outcomes = Collected<String>()
    let (started, detached) = (Flag(), Lock<Task<Void, Never>?>.make(nil))
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      // Inherits the making: its request for this key throws at once.
      await Task {
        do {
          _ = try await later.get.branch(for: user)
          outcomes.append("child: branch")
        } catch {
          outcomes.append("child: \(type(of: error))")
        }
      }.value
      // Detached: waits for the branch, which is made once this closure returns.
      detached.withLock {
        $0 = Task.detached {
          started.raise()
          let session = try? await later.get.withBranch(for: user) { try $0.context(for: SessionScope.self) }
          outcomes.append("detached: \(session?.user ?? "none")")
        }
      }
      _ = await started.suspendUntilRaised()
      return Session(user: user)
    }
    later.set(sessions)
    _ = try await sessions.branch(for: "ann")
    let task = try #require(detached.withLock { $0 })
    #expect(await ends { await task.value })
    #expect(outcomes.all == ["child: KeyedBranchesCycle", "detached: ann"])
    try await sessions.close()
  }
}
