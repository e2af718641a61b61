import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import Synchronization
import Testing

@Suite struct KeyedBranchesTests {
  /// A session cacheable with a teardown: which load made it, for which user, and a log of the
  /// teardowns that ran.
  struct SessionMark: CacheableFeature {
    var serial: Int
    var user: String
    static var placeholder: SessionMark { SessionMark(serial: -1, user: "") }
  }

  /// A tree whose session branches each load one `SessionMark`, torn down into `closed`.
  func tree(loads: Tally, closed: Collected<String>) -> Features {
    FeaturesRoot { registry in
      registry.defineScope(SessionScope.self) { registry in
        registry.use(
          .cacheable { features in
            SessionMark(serial: loads.next(), user: try features.context(for: SessionScope.self).user)
          } teardown: { mark in
            closed.append(mark.user)
          })
      }
    }
  }

  /// The session's mark, loaded in its branch.
  func mark(_ sessions: KeyedBranches<String, SessionScope>, _ key: String) async throws -> SessionMark {
    try await sessions.withBranch(for: key) { try await $0.instance() }
  }

  @Test func concurrentRequestsForOneKeyGetOneBranchMadeOnce() async throws {
    let contexts = Tally()
    let loads = Tally()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: loads, closed: Collected())) { (user: String) in
      contexts.next()
      try await Task.sleep(for: .milliseconds(5))  // keep the first one in flight while the others arrive
      return Session(user: user)
    }
    let serials = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<100 { group.addTask { try await mark(sessions, "ann").serial } }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(contexts.value == 1)
    #expect(loads.value == 1)
    #expect(Set(serials) == [1])
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  /// A key that is neither a `String` nor an `Int`, whose equal values hash alike only through
  /// its own `Hashable`: it takes the type-erased path.
  struct AccountID: Hashable, Sendable {
    var region: String
    var number: Int
  }

  @Test func keysOfEveryKindFindTheirOwnBranchAgain() async throws {
    let root = tree(loads: Tally(), closed: Collected())
    let byName = KeyedBranches(SessionScope.self, of: root) { (name: String) in Session(user: name) }
    let byNumber = KeyedBranches(SessionScope.self, of: root) { (number: Int) in Session(user: "#\(number)") }
    let byAccount = KeyedBranches(SessionScope.self, of: root) { (account: AccountID) in
      Session(user: "\(account.region)-\(account.number)")
    }
    func serial<Key>(_ sessions: KeyedBranches<Key, SessionScope>, _ key: Key) async throws -> String {
      try await sessions.withBranch(for: key) { branch in
        let mark: SessionMark = try await branch.instance()
        return "\(mark.user):\(mark.serial)"
      }
    }
    // A key built again (a new String, a new struct) finds the branch made for an equal one.
    let first = [
      try await serial(byName, "ann"), try await serial(byNumber, 7),
      try await serial(byAccount, AccountID(region: "eu", number: 7)),
    ]
    let again = [
      try await serial(byName, String("an" + "n")), try await serial(byNumber, 3 + 4),
      try await serial(byAccount, AccountID(region: "e" + "u", number: 7)),
    ]
    #expect(first == again)
    #expect(first.map { $0.split(separator: ":")[0] } == ["ann", "#7", "eu-7"])
    // Different keys, different branches.
    #expect(try await serial(byAccount, AccountID(region: "us", number: 7)).hasPrefix("us-7:"))
    #expect([byName.count, byNumber.count, byAccount.count] == [1, 1, 2])
    try await root.close()
  }

  @Test func eachKeyHasItsOwnBranch() async throws {
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: Collected())) { (user: String) in
      Session(user: user)
    }
    let ann = try await mark(sessions, "ann")
    let bob = try await mark(sessions, "bob")
    #expect(ann.user == "ann")
    #expect(bob.user == "bob")
    #expect(ann.serial != bob.serial)
    #expect(try await mark(sessions, "ann").serial == ann.serial)
    #expect(sessions.count == 2)
    try await sessions.close()
  }

  @Test func aContextThatThrowsIsNotKept() async throws {
    struct Refused: Error {}
    let attempts = Tally()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: Collected())) { (user: String) in
      if attempts.next() == 1 {
        try await Task.sleep(for: .milliseconds(5))
        throw Refused()
      }
      return Session(user: user)
    }
    let failures = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<10 { group.addTask { (try? await mark(sessions, "ann")) == nil } }
      return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
    }
    // Every request that waited for the failed branch got the error; one that came after it
    // made a new branch.
    #expect(failures >= 1)
    #expect(try await mark(sessions, "ann").user == "ann")
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  @Test func anIdleBranchIsEvictedAndClosed() async throws {
    let clock = ManualClock()
    let closed = Collected<String>()
    let sessions = KeyedBranches(
      SessionScope.self, of: tree(loads: Tally(), closed: closed), idleTime: .seconds(60), clock: clock
    ) { (user: String) in Session(user: user) }
    let first = try await mark(sessions, "ann")
    _ = try await mark(sessions, "bob")
    clock.advance(by: .seconds(30))
    _ = try await mark(sessions, "bob")  // bob is used again, ann is not
    clock.advance(by: .seconds(30))
    await sessions.evictIdle()
    #expect(closed.all == ["ann"])
    #expect(sessions.count == 1)
    // ann's next request gets a new branch.
    #expect(try await mark(sessions, "ann").serial != first.serial)
    clock.advance(by: .seconds(60))
    _ = try await mark(sessions, "carol")  // a request evicts what is due
    #expect(closed.all.sorted() == ["ann", "ann", "bob"])
    try await sessions.close()
  }

  @Test func theLeastRecentlyUsedBranchIsEvictedBeyondTheMaximumCount() async throws {
    let closed = Collected<String>()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: closed), maximumCount: 2) {
      (user: String) in Session(user: user)
    }
    _ = try await mark(sessions, "ann")
    _ = try await mark(sessions, "bob")
    _ = try await mark(sessions, "ann")
    _ = try await mark(sessions, "carol")
    #expect(closed.all == ["bob"])
    #expect(sessions.count == 2)
    try await sessions.close()
  }

  @Test(arguments: [0, -3])
  func aMaximumCountBelowOneIsReportedAndTheSetKeepsOneBranch(maximumCount: Int) async throws {
    let closed = Collected<String>()
    let line = #line + 2
    let (sessions, reports) = IssueReporting.capturingReports {
      KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: closed), maximumCount: maximumCount) {
        (user: String) in Session(user: user)
      }
    }
    #expect(reports.map(\.severity) == [.failure])
    #expect(reports.first?.site?.description == "ArborTests/KeyedBranchesTests.swift:\(line)")
    #expect(
      reports.first?.diagnostic.renderedTree() == """
        KeyedBranchesMaximumCountInvalid: maximumCount is \(maximumCount) for the branches of SessionScope: it must be positive
        ├─ requested at: ArborTests/KeyedBranchesTests.swift:\(line)
        ├─ instead: the set keeps at most 1 branch
        └─ fix: pass how many branches to keep at most (1 or more), or nil for no limit
        """)
    #expect(sessions.maximumCount == 1)
    _ = try await mark(sessions, "ann")
    _ = try await mark(sessions, "bob")  // over the one kept: ann, unused, is evicted
    #expect(closed.all == ["ann"])
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  @Test func aNegativeIdleTimeIsReportedAndTheSetUsesZero() async throws {
    let clock = ManualClock()
    let closed = Collected<String>()
    let line = #line + 2
    let (sessions, reports) = IssueReporting.capturingReports {
      KeyedBranches(
        SessionScope.self, of: tree(loads: Tally(), closed: closed), idleTime: .seconds(-5), clock: clock
      ) { (user: String) in Session(user: user) }
    }
    #expect(reports.map(\.severity) == [.failure])
    #expect(
      reports.first?.diagnostic.renderedTree() == """
        KeyedBranchesIdleTimeInvalid: idleTime is -5.0 seconds for the branches of SessionScope: it must not be negative
        ├─ requested at: ArborTests/KeyedBranchesTests.swift:\(line)
        ├─ instead: the set evicts a branch as soon as no request uses it (an idle time of zero)
        └─ fix: pass how long a branch may go unused (zero or more), or nil for no limit
        """)
    #expect(sessions.idleTime == .zero)
    _ = try await mark(sessions, "ann")
    clock.advance(by: .milliseconds(1))
    _ = try await mark(sessions, "bob")  // ann, unused since, is evicted by this request
    #expect(closed.all == ["ann"])
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  @Test func aBranchInUseIsNeverEvicted() async throws {
    let closed = Collected<String>()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: closed), maximumCount: 1) {
      (user: String) in Session(user: user)
    }
    try await sessions.withBranch(for: "ann") { ann in
      _ = try await mark(sessions, "bob")  // over the maximum: ann is in use, so it stays
      #expect(closed.all.isEmpty)
      let mark: SessionMark = try await ann.instance()
      #expect(mark.user == "ann")
    }
    _ = try await mark(sessions, "carol")  // now the least recently used go
    #expect(closed.all.sorted() == ["ann", "bob"])
    #expect(sessions.count == 1)
    try await sessions.close()
  }

  @Test func aBranchEvictedInUseIsClosedWhenItsLastRequestEnds() async throws {
    let closed = Collected<String>()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: closed)) { (user: String) in
      Session(user: user)
    }
    let before = try await mark(sessions, "ann")
    try await sessions.withBranch(for: "ann") { ann in
      try await sessions.evict("ann")  // signing out, from a request of the session itself
      #expect(closed.all.isEmpty)
      let mark: SessionMark = try await ann.instance()
      #expect(mark.serial == before.serial)
    }
    #expect(closed.all == ["ann"])
    #expect(try await mark(sessions, "ann").serial != before.serial)
    try await sessions.close()
  }

  @Test func aBranchEvictedInUseAndThenTakenByTheSetsCloseIsClosedOnce() async throws {
    let closed = Collected<String>()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: closed)) { (user: String) in
      Session(user: user)
    }
    _ = try await mark(sessions, "ann")
    try await sessions.withBranch(for: "ann") { _ in
      try await sessions.withBranch(for: "ann") { _ in
        try await sessions.evict("ann")  // in use twice: its last lease would close it
        #expect(closed.all.isEmpty)
      }
      #expect(closed.all.isEmpty)  // one lease still holds it
      try await sessions.close()  // the set's close takes it, and closes it now
      #expect(closed.all == ["ann"])
    }
    #expect(closed.all == ["ann"])  // the last lease finds it closed by the set: not twice
    #expect(sessions.count == 0)
  }

  @Test func closingTheSetClosesEveryBranchAndRefusesNewRequests() async throws {
    let closed = Collected<String>()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: Tally(), closed: closed)) { (user: String) in
      Session(user: user)
    }
    _ = try await mark(sessions, "ann")
    _ = try await mark(sessions, "bob")
    let closedAt = #line + 1
    try await sessions.close()
    #expect(closed.all.sorted() == ["ann", "bob"])
    try await sessions.close()  // a second close does nothing
    #expect(closed.all.count == 2)
    let error = await #expect(throws: KeyedBranchesClosed.self) { try await mark(sessions, "ann") }
    #expect(
      error.map { String(reflecting: $0) } == """
        KeyedBranchesClosed: cannot branch SessionScope for "ann": the set of its branches is closed
        ├─ requested at: ArborTests/KeyedBranchesTests.swift:32
        ├─ closed at: ArborTests/KeyedBranchesTests.swift:\(closedAt)
        └─ fix: request branches before the set is closed (close it on shutdown, after the server)
        """)
  }

  @Test func underChurnEveryBranchIsMadeOnceAndClosedOnce() async throws {
    let loads = Tally()
    let closed = Collected<String>()
    let generations = Tally()
    let sessions = KeyedBranches(SessionScope.self, of: tree(loads: loads, closed: closed), maximumCount: 3) {
      (user: String) in
      Session(user: "\(user)#\(generations.next())")
    }
    let mismatches = Tally()
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for iteration in 0..<200 {
            let key = "user\((task * 7 + iteration) % 6)"
            let marks = try? await sessions.withBranch(for: key) { branch -> (SessionMark, SessionMark) in
              (try await branch.instance(), try await branch.instance())
            }
            if let (first, second) = marks, first.serial != second.serial || !first.user.hasPrefix(key + "#") {
              mismatches.next()
            }
            if marks == nil { mismatches.next() }
          }
        }
      }
    }
    try await sessions.close()
    #expect(mismatches.value == 0)
    // Every branch made loaded its mark once and was closed once: each generation's user appears
    // once among the teardowns.
    #expect(closed.all.count == loads.value)
    #expect(Set(closed.all).count == closed.all.count)
    #expect(generations.value == loads.value)
  }
}
