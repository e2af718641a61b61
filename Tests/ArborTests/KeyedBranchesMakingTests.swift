import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Synchronization
import Testing

/// A set's context closure runs before its key's branch exists: what it asks of the set never
/// waits for that branch, and a request for it fails with what it is.
@Suite struct KeyedBranchesMakingTests {
  /// A tree with a session scope that loads nothing.
  var root: Features { FeaturesRoot { registry in registry.defineScope(SessionScope.self) { _ in } } }

  @Test func aContextThatEvictsItsOwnKeyEndsAndItsBranchIsMade() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      try await later.get.evict(user)  // no branch yet: returns at once
      return Session(user: user)
    }
    later.set(sessions)
    let made = Lock<Session?>.make(nil)
    #expect(
      await ends {
        let session = try await sessions.withBranch(for: "ann") { try $0.context(for: SessionScope.self) }
        made.withLock { $0 = session }
      })
    #expect(made.withLock { $0 } == Session(user: "ann"))
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  @Test func aContextThatClosesItsSetEndsAndItsRequestIsRefused() async throws {
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
        KeyedBranchesCycle: cannot branch SessionScope for "ann": the request is part of making that very branch
        ├─ requested at: ArborTests/KeyedBranchesMakingTests.swift:\(requestedAt)
        └─ fix: make the context without the key's own branch: a context closure, and the branches it requests, run before that branch exists
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

  @Test func aContextThatRequestsAnotherKeyGetsItsBranch() async throws {
    let later = Later<KeyedBranches<String, SessionScope>>()
    defer { later.clear() }
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in
      if user == "ann" { _ = try await later.get.branch(for: "bob") }
      return Session(user: user)
    }
    later.set(sessions)
    _ = try await sessions.branch(for: "ann")
    #expect(sessions.count == 2)
    try await sessions.close()
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
