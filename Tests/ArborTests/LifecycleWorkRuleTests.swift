import Arbor
import ArborDemoFeatures
import ArborDiagnostics
import ArborTestSupport
import Testing

/// Lifecycle work never waits for lifecycle work: what each lifecycle call answers inside each kind
/// of lifecycle work (a loader, a close's teardown, a renewal's teardown, a before-serving work, a
/// keyed branch's making).
///
/// A close of any kind (`close()`, the close at the end of `withBranch`, a keyed set's `evict` or
/// `close`) returns at once, before the teardowns it started ran, and goes on: its target ends
/// closed, and a teardown of it that throws is reported. `refresh` and `start` throw
/// `LifecycleWorkReentered` at once, naming the work, and nothing was renewed or started.
@Suite(.timeLimit(.minutes(2))) struct LifecycleWorkRuleTests {
  enum Work: String, CaseIterable, CustomTestStringConvertible {
    case loader = "a loader"
    case closeTeardown = "a close's teardown"
    case renewalTeardown = "a renewal's teardown"
    case beforeServing = "a before-serving work"
    case making = "a keyed branch's making"

    var testDescription: String { rawValue }

    /// How `LifecycleWorkReentered` names it, for the tree ``Tree`` builds.
    var described: String {
      switch self {
      case .loader:
        "the loader of Trigger"
      case .closeTeardown, .renewalTeardown:
        "the teardown of Trigger (Trigger.live() at App/Trigger.swift:8, registered at App/Session.swift:14)"
      case .beforeServing:
        "the work before serving named at App/Session.swift:20"
      case .making:
        #"the making of the SessionScope branch for "worker""#
      }
    }
  }

  /// The calls that close something.
  enum Close: String, CaseIterable, CustomTestStringConvertible {
    case close = "close()"
    case withBranch = "withBranch"
    case evict = "a keyed set's evict"
    case closeSet = "a keyed set's close"

    var testDescription: String { rawValue }
  }

  /// A feature whose loader or teardown is the lifecycle work under test.
  struct Trigger: CacheableFeature {
    static var placeholder: Trigger { Trigger() }
  }

  /// A session's resource whose teardown waits for `gate`, logs `down <user>`, then throws: what
  /// a close started from lifecycle work must not wait for, and must report.
  struct Held: CacheableFeature {
    var user: String
    static var placeholder: Held { Held(user: "placeholder") }
  }

  /// A root with sessions: `worker` runs the lifecycle work of `work` (its trigger's loader or
  /// teardown, its before-serving work, or its making in `makers`), which runs `call` once and
  /// records what it answered in `outcomes`.
  final class Tree: Sendable {
    let work: Work
    let log: Collected<String>
    let outcomes: Collected<String>
    /// Holds every `Held` teardown.
    let gate: Flag
    let root: Features
    /// The set the keyed calls use.
    let sessions: KeyedBranches<String, SessionScope>
    /// The set whose making of `worker` is the work, for ``Work/making``.
    let makers: KeyedBranches<String, SessionScope>
    private let call: Later<@Sendable () async throws -> Void>

    init(_ work: Work) {
      let (log, outcomes, gate, pools) = (Collected<String>(), Collected<String>(), Flag(), Tally())
      let (call, ran) = (Later<@Sendable () async throws -> Void>(), Lock<Bool>.make(false))
      let perform = Later<@Sendable () async -> Void>()
      (self.work, self.log, self.outcomes, self.gate, self.call) = (work, log, outcomes, gate, call)
      root = FeaturesRoot { registry in
        registry.use(.cacheable { _ in Pool(name: "pool \(pools.next())") })
        registry.defineScope(SessionScope.self) { registry in
          registry.use(
            .cacheable(implementation: "live()", file: "App/Trigger.swift", line: 8) {
              (_: Features) async throws -> Trigger in
              if work == .loader { await perform.get() }
              return Trigger()
            } teardown: { _ in
              if work == .closeTeardown || work == .renewalTeardown { await perform.get() }
            },
            file: "App/Session.swift", line: 14)
          registry.use(
            .cacheable { (features: Features) in
              Held(user: try features.context(for: SessionScope.self).user)
            } teardown: { held in
              _ = await gate.suspendUntilRaised(seconds: 60)
              log.append("down \(held.user)")
              throw Closed(name: held.user)
            })
          registry.beforeServing(file: "App/Session.swift", line: 20) { features in
            let user = try features.context(for: SessionScope.self).user
            if user == "worker" {
              if work == .beforeServing { await perform.get() }
            } else {
              log.append("started \(user)")
            }
          }
        }
      }
      sessions = KeyedBranches(SessionScope.self, of: root) { Session(user: $0) }
      makers = KeyedBranches(SessionScope.self, of: root) { user in
        if work == .making { await perform.get() }
        return Session(user: user)
      }
      perform.set {
        // Once: a teardown of the trigger may run again when the root closes.
        guard
          ran.withLock({ ran in
            defer { ran = true }; return !ran
          })
        else { return }
        do {
          try await call.get()
          outcomes.append("returned")
        } catch {
          outcomes.append(String(reflecting: error))
        }
      }
    }

    /// Runs the work, which runs `call` inside it.
    func run(_ call: @escaping @Sendable () async throws -> Void) async throws {
      self.call.set(call)
      switch work {
      case .loader:
        let worker = try root.branch(SessionScope.self, context: Session(user: "worker"))
        _ = try await worker.instance(of: Trigger.self)
        try await worker.close()
      case .closeTeardown:
        let worker = try root.branch(SessionScope.self, context: Session(user: "worker"))
        _ = try await worker.instance(of: Trigger.self)
        try await worker.close()
      case .renewalTeardown:
        let worker = try root.branch(SessionScope.self, context: Session(user: "worker"))
        _ = try await worker.instance(of: Trigger.self)
        _ = try await worker.refresh(Trigger.self)
        try await worker.close()
      case .beforeServing:
        let worker = try root.branch(SessionScope.self, context: Session(user: "worker"))
        try await worker.start()
        try await worker.close()
      case .making:
        _ = try await makers.branch(for: "worker")
      }
    }

    /// What the call answered: `returned`, or the first line of its error.
    var answers: [String] { outcomes.all.map { String($0.prefix { $0 != "\n" }) } }

    /// Lets go of what the loaders reach, so that the tree is freed.
    func clear() { call.clear() }
  }

  /// The first report of `kind`, or `nil` after `seconds`.
  static func firstReport(
    _ kind: String, in reports: AsyncStream<IssueReporting.Report>, seconds: Double = 30
  ) async throws -> IssueReporting.Report? {
    try await withTimeout(seconds: seconds) {
      for await report in reports where report.diagnostic.kind == kind { return report }
      return nil
    }
  }

  /// Makes the target `close` closes, with a `Held` instance whose teardown waits: the target's
  /// user, where its branch will be once made, and the call.
  static func target(
    of close: Close, in tree: Tree
  ) async throws -> (user: String, branch: Later<Features>, call: @Sendable () async throws -> Void) {
    let branch = Later<Features>()
    let (root, sessions) = (tree.root, tree.sessions)
    switch close {
    case .close:
      let bob = try root.branch(SessionScope.self, context: Session(user: "bob"))
      _ = try await bob.instance(of: Held.self)
      branch.set(bob)
      return ("bob", branch, { try await bob.close() })
    case .withBranch:
      let call: @Sendable () async throws -> Void = {
        try await root.withBranch(SessionScope.self, context: Session(user: "carol")) { carol in
          branch.set(carol)
          _ = try await carol.instance(of: Held.self)
        }
      }
      return ("carol", branch, call)
    case .evict:
      try await sessions.withBranch(for: "dave") { dave in
        branch.set(dave)
        _ = try await dave.instance(of: Held.self)
      }
      return ("dave", branch, { try await sessions.evict("dave") })
    case .closeSet:
      try await sessions.withBranch(for: "dave") { dave in
        branch.set(dave)
        _ = try await dave.instance(of: Held.self)
      }
      return ("dave", branch, { try await sessions.close() })
    }
  }

  @Test(arguments: Work.allCases, Close.allCases)
  func aCloseInsideLifecycleWorkReturnsAtOnceAndGoesOn(work: Work, close: Close) async throws {
    let tree = Tree(work)
    defer { tree.clear() }
    try await streamingReports { reports in
      let (target, branch, call) = try await Self.target(of: close, in: tree)
      defer { branch.clear() }
      // The target's teardown is held: a close that waited for it would not return.
      try await ended { try await tree.run(call) }
      #expect(tree.answers == ["returned"])
      #expect(tree.log.all == [])
      tree.gate.raise()
      let report = try await Self.firstReport("TeardownFailed", in: reports)
      #expect(
        report?.diagnostic.message
          == #"1 teardown failed while closing Root › SessionScope(Session(user: "\#(target)"))"#)
      #expect(tree.log.all == ["down \(target)"])
      #expect(throws: FeaturesClosed.self) { try branch.get.context(ifPresent: SessionScope.self) }
      if close == .evict { #expect(tree.sessions.count == 0) }
      if close == .closeSet {
        await #expect(throws: KeyedBranchesClosed.self) { try await tree.sessions.branch(for: target) }
      }
      try await ended { try await tree.root.close() }
      #expect(tree.log.all == ["down \(target)"])  // torn down once
    }
  }

  @Test(arguments: Work.allCases)
  func aRefreshInsideLifecycleWorkIsRefusedAtOnce(work: Work) async throws {
    let tree = Tree(work)
    defer { tree.clear() }
    let root = tree.root
    #expect(try await root.instance(of: Pool.self).name == "pool 1")
    try await ended { try await tree.run { _ = try await root.refresh(Pool.self) } }
    #expect(tree.answers == ["LifecycleWorkReentered: refresh(Pool) cannot run inside \(work.described)"])
    #expect(try await root.instance(of: Pool.self).name == "pool 1")  // nothing was renewed
    // Outside lifecycle work, the same refresh renews.
    #expect(try await root.refresh(Pool.self).map(\.feature) == ["Pool"])
    #expect(try await root.instance(of: Pool.self).name == "pool 2")
    #expect(await ends { try await root.close() })
  }

  @Test(arguments: Work.allCases)
  func aStartInsideLifecycleWorkIsRefusedAtOnce(work: Work) async throws {
    let tree = Tree(work)
    defer { tree.clear() }
    let erin = try tree.root.branch(SessionScope.self, context: Session(user: "erin"))
    try await ended { try await tree.run { try await erin.start() } }
    #expect(tree.answers == ["LifecycleWorkReentered: start() cannot run inside \(work.described)"])
    #expect(tree.log.all == [])  // nothing was started
    // Outside lifecycle work, the same start runs, once.
    #expect(await ends { try await erin.start() })
    #expect(tree.log.all == ["started erin"])
    #expect(await ends { try await tree.root.close() })
  }
}
