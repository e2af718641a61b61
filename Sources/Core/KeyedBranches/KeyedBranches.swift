/// A set of branches of one scope, one per key, made on first use and closed when evicted or when
/// the set is closed: a server's session branch per signed-in user, an app's branch per account.
///
/// The first request for a key makes its context with `context` and branches the scope with it from
/// `parent`; concurrent requests for the same key wait for that one branch, so a key has one branch
/// at a time, made exactly once. When making it fails (the context throws, say), every waiting
/// request gets the error and nothing is kept: the next request tries again.
///
/// A branch is evicted when it has not been used for `idleTime`, or when the set holds more than
/// `maximumCount` (the least recently used first), and then closed, which runs its teardowns. A
/// branch in use by ``withBranch(for:file:line:isolation:_:)`` is never evicted by either rule;
/// one taken out with ``evict(_:file:line:)`` while in use is closed when the last request using it
/// ends. Eviction happens as requests come: a request for a new key makes room in a full set, and
/// requests look for idle branches every sixteenth of `idleTime` (so a branch may outlive its idle
/// time by that much); call ``evictIdle(file:line:)`` on a timer to close idle branches when no
/// request comes. A request that evicts closes what it evicted before its own work; a close that
/// fails then is reported through ``IssueReporting``, since no caller waits for it.
///
/// ```swift
/// let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .seconds(900), maximumCount: 10_000) {
///   (token: String) in try await Session(user: accounts.user(for: token))
/// }
/// try await sessions.withBranch(for: token) { session in
///   try await session.withBranch(RequestScope.self, context: request) { request in … }
/// }
/// try await sessions.close()   // on shutdown, or let closing the root close them
/// ```
public final class KeyedBranches<Key: Hashable & Sendable, Scope: FeaturesScope>: Sendable {
  /// The branch every key's branch is made from.
  public let parent: Features
  /// How long a branch may go unused before it is evicted; `nil` for no limit. It is zero when the
  /// time passed was negative (and reported as `KeyedBranchesIdleTimeInvalid`).
  public let idleTime: Duration?
  /// How many branches the set keeps at most (in use ones excepted); `nil` for no limit. It is 1
  /// when the count passed was below 1 (and reported as `KeyedBranchesMaximumCountInvalid`).
  public let maximumCount: Int?
  /// Makes the context of a key's branch.
  private let context: @Sendable (Key) async throws -> Scope.Context
  /// The set's clock, as the time since the set was made.
  private let now: @Sendable () -> Duration
  private let state = Lock<KeyedBranchesState>.make(KeyedBranchesState())

  /// A set of branches of `scope` made from `parent`, one per key.
  ///
  /// ```swift
  /// let accounts = KeyedBranches(AccountScope.self, of: root, maximumCount: 8) { (id: Account.ID) in
  ///   try await Account(id: id)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope of the branches; defined where `parent` can branch it.
  ///   - parent: The branch they are made from: the root, usually.
  ///   - idleTime: How long a branch may go unused before it is evicted; `nil` for no limit. Must
  ///     not be negative: a negative time is reported as `KeyedBranchesIdleTimeInvalid` through
  ///     ``IssueReporting``, and the set uses zero.
  ///   - maximumCount: How many branches to keep at most; `nil` for no limit. Must be positive: a
  ///     count below 1 is reported as `KeyedBranchesMaximumCountInvalid` through
  ///     ``IssueReporting``, and the set keeps at most one branch.
  ///   - clock: Measures idle time; a test passes one it controls.
  ///   - file: Where the set is made; captured for you.
  ///   - line: Where the set is made; captured for you.
  ///   - context: Makes the context of a key's branch, once per branch. An error it throws reaches
  ///     the requests waiting for the branch, and nothing is kept. It is lifecycle work, and so is
  ///     the work it starts (child tasks and `Task { }`, which inherit where they were started): a
  ///     request from it for any keyed branch throws ``KeyedBranchesCycle``, an `evict` or `close`
  ///     from it returns at once, and `refresh` or `start` throws ``LifecycleWorkReentered``. Start
  ///     work that must wait for a keyed branch with `Task.detached`.
  public init<C: Clock>(
    _ scope: Scope.Type, of parent: Features, idleTime: Duration? = nil, maximumCount: Int? = nil,
    clock: C = ContinuousClock(), file: StaticString = #fileID, line: UInt = #line,
    context: @escaping @Sendable (Key) async throws -> Scope.Context
  ) where C.Duration == Duration {
    self.parent = parent
    if let idleTime, idleTime < .zero {
      let invalid = KeyedBranchesIdleTimeInvalid(
        scope, idleTime: idleTime, at: SourceLocation(fileID: file, line: line))
      IssueReporting.report(invalid.diagnostic, severity: .failure)
      self.idleTime = .zero
    } else {
      self.idleTime = idleTime
    }
    if let maximumCount, maximumCount < 1 {
      let invalid = KeyedBranchesMaximumCountInvalid(
        scope, maximumCount: maximumCount, keeping: 1, at: SourceLocation(fileID: file, line: line))
      IssueReporting.report(invalid.diagnostic, severity: .failure)
      self.maximumCount = 1
    } else {
      self.maximumCount = maximumCount
    }
    self.context = context
    if let continuous = clock as? ContinuousClock {
      // The usual clock, read without a generic call: two reads a request.
      let origin = continuous.now
      self.now = { origin.duration(to: .now) }
    } else {
      let origin = clock.now
      self.now = { origin.duration(to: clock.now) }
    }
  }

  /// How many keys have a branch, or one being made.
  public var count: Int { state.withLock { $0.entries.count } }

  /// Runs `body` with `key`'s branch, made first if the key has none; the branch is not evicted
  /// while `body` runs.
  ///
  /// ```swift
  /// let todos = try await sessions.withBranch(for: token) { session in
  ///   try await session.instance(of: Todos.self).list()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - file: Where the branch is requested; captured for you.
  ///   - line: Where the branch is requested; captured for you.
  ///   - isolation: The caller's actor, captured for you: `body` runs there.
  ///   - body: The work to do with the branch.
  /// - Returns: What `body` returned.
  /// - Throws: What making the branch threw (its context's error, or the errors of
  ///   ``Features/branch(_:context:file:line:)``), ``KeyedBranchesClosed`` once the set is closed,
  ///   ``KeyedBranchesCycle`` from inside a keyed branch's making, and what `body` threw.
  @inlinable
  public func withBranch<Result>(
    for key: Key, file: StaticString = #fileID, line: UInt = #line, isolation: isolated (any Actor)? = #isolation,
    _ body: nonisolated(nonsending) (Features) async throws -> Result
  ) async throws -> Result {
    // Inlinable, so that the caller's `Result` is known here: an async function keeps a value of
    // a generic type in task memory, one allocation per call.
    let location = SourceLocation(fileID: file, line: line)
    var lease = try lease(key, at: location)
    // Only a request that evicted or found the branch being made awaits before its body.
    if !lease.isReady { try await prepare(&lease, for: key, at: location) }
    let result: Result
    do {
      result = try await body(lease.branch!)
    } catch {
      if let retired = release(lease) { await close([retired], at: location) }
      throw error
    }
    if let retired = release(lease) { await close([retired], at: location) }
    return result
  }

  /// `key`'s branch, made first if the key has none.
  ///
  /// The set may evict the branch, and close it, as soon as this returns: prefer
  /// ``withBranch(for:file:line:isolation:_:)`` for work that must not see it closed.
  ///
  /// ```swift
  /// let account = try await accounts.branch(for: id)
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - file: Where the branch is requested; captured for you.
  ///   - line: Where the branch is requested; captured for you.
  /// - Returns: The branch.
  /// - Throws: See ``withBranch(for:file:line:isolation:_:)``.
  public func branch(for key: Key, file: StaticString = #fileID, line: UInt = #line) async throws -> Features {
    try await withBranch(for: key, file: file, line: line) { $0 }
  }

  /// Evicts `key`'s branch and closes it: now if it is not in use, else when the last request using
  /// it ends. The next request for `key` makes a new branch. A branch being made is waited for
  /// first.
  ///
  /// Called from lifecycle work (a loader, a teardown, a before-serving work, a keyed branch's
  /// making), it returns at once, as ``Features/close(file:line:isolation:)`` does there: the
  /// eviction goes on in a task of its own, and a teardown that throws is reported through
  /// ``IssueReporting``.
  ///
  /// ```swift
  /// try await sessions.evict(token)   // on sign-out
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - file: Where it is evicted; captured for you.
  ///   - line: Where it is evicted; captured for you.
  /// - Throws: `TeardownFailed` when the branch was closed now and a teardown threw.
  public func evict(_ key: Key, file: StaticString = #fileID, line: UInt = #line) async throws {
    guard LifecycleWork.running == nil else {
      Task { try? await evictNow(key, file: file, line: line) }
      return
    }
    try await evictNow(key, file: file, line: line)
  }

  private func evictNow(_ key: Key, file: StaticString, line: UInt) async throws {
    while true {
      switch state.withLock({ $0.remove(BranchKey(key)) }) {
      case .none:
        return
      case .wait(let making):
        _ = try? await making.task.value
      case .close(let branch):
        try await branch.close(file: file, line: line)
        return
      }
    }
  }

  /// Evicts and closes the branches that have not been used for ``idleTime``.
  ///
  /// ```swift
  /// while !Task.isCancelled {
  ///   try await Task.sleep(for: .seconds(60))
  ///   await sessions.evictIdle()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - file: Where it is called; captured for you.
  ///   - line: Where it is called; captured for you.
  public func evictIdle(file: StaticString = #fileID, line: UInt = #line) async {
    let evicted = state.withLock { $0.evict(idleTime: idleTime, maximumCount: maximumCount, now: now()) }
    await close(evicted, at: SourceLocation(fileID: file, line: line))
  }

  /// Closes the set: every branch it holds is closed, in use or not, and every later request throws
  /// ``KeyedBranchesClosed``. A second call returns at once. Branches being made are waited for and
  /// closed.
  ///
  /// Called from lifecycle work (a loader, a teardown, a before-serving work, a keyed branch's
  /// making), it returns at once once the set refuses requests: the branches close in a task of their
  /// own, and a teardown that throws is reported through ``IssueReporting``.
  ///
  /// ```swift
  /// try await sessions.close()
  /// ```
  ///
  /// - Parameters:
  ///   - file: Where the set is closed; captured for you.
  ///   - line: Where the set is closed; captured for you.
  /// - Throws: `TeardownFailed` when a teardown threw: the first such failure, after every branch
  ///   was closed; the others are reported through ``IssueReporting``.
  public func close(file: StaticString = #fileID, line: UInt = #line) async throws {
    let location = SourceLocation(fileID: file, line: line)
    guard let (branches, opening) = state.withLock({ $0.close(at: location) }) else { return }
    guard LifecycleWork.running == nil else {
      Task { await close(branches + Self.made(opening), at: location) }
      return
    }
    var failures: [any Error] = []
    for branch in branches + (await Self.made(opening)) {
      do {
        try await branch.close(file: file, line: line)
      } catch {
        failures.append(error)
      }
    }
    guard let first = failures.first else { return }
    for failure in failures.dropFirst() {
      IssueReporting.report(Diagnostic(describing: failure), severity: .failure, at: location)
    }
    throw first
  }

  /// The branches of `makings`, once made; those whose making failed are left out.
  private static func made(_ makings: [KeyedBranchesState.Making]) async -> [Features] {
    var made: [Features] = []
    for making in makings {
      if let branch = try? await making.task.value { made.append(branch) }
    }
    return made
  }

  /// Leases the branch of `key`, starting to make it if there is none, and evicting what the set's
  /// limits say must go.
  ///
  /// Inside a keyed branch's making, it throws ``KeyedBranchesCycle``: a making never waits for a
  /// making, so two can never wait for each other.
  @usableFromInline
  func lease(_ key: Key, at location: SourceLocation) throws -> KeyedBranchesLease {
    if let making = LifecycleWork.current, case .making = making {
      throw KeyedBranchesCycle(Scope.self, key: key, inside: making, requestedAt: location)
    }
    let hashable = BranchKey(key)
    let now = now()
    return try state.withLock { state in
      if let closedAt = state.closedAt {
        throw KeyedBranchesClosed(Scope.self, key: key, closedAt: closedAt, requestedAt: location)
      }
      let evicted = state.evictDue(adding: hashable, idleTime: idleTime, maximumCount: maximumCount, now: now)
      let lease = state.lease(hashable, now: now) { generation in open(key, generation: generation, at: location) }
      return KeyedBranchesLease(lease, evicted: evicted)
    }
  }

  /// Closes the branches `lease`'s request evicted, and waits for its branch to be made; gives the
  /// lease back if that fails.
  @usableFromInline
  func prepare(_ lease: inout KeyedBranchesLease, for key: Key, at location: SourceLocation) async throws {
    if !lease.evicted.isEmpty {
      await close(lease.evicted, at: location)
      lease.evicted = []
    }
    guard let making = lease.opening else { return }
    do {
      lease.branch = try await making.task.value
    } catch {
      _ = release(lease)
      throw error
    }
  }

  /// Gives `lease` back; the branch to close when it was the last lease of a branch evicted while
  /// in use.
  @usableFromInline
  func release(_ lease: KeyedBranchesLease) -> Features? {
    let now = now()
    return state.withLock { $0.release(lease.entry, now: now) }
  }

  /// Starts making `key`'s branch, in a task of its own, so that a requester's cancellation never
  /// fails the others waiting for it. The making is lifecycle work: its context closure, and what
  /// it starts, never wait for a making (``lease(_:at:)``) nor for a close.
  private func open(_ key: Key, generation: UInt64, at location: SourceLocation) -> KeyedBranchesState.Making {
    let task = Task {
      do {
        let context = try await LifecycleWork.$current.withValue(.making(of: Scope.self, for: key)) {
          try await self.context(key)
        }
        let branch = try parent.branch(Scope.self, context: context, file: location.fileID, line: location.line)
        if let orphan = state.withLock({ $0.opened(BranchKey(key), generation: generation, branch: branch) }) {
          // The set was closed while this branch was made, and its close did not wait for it.
          await close([orphan], at: location)
          throw KeyedBranchesClosed(
            Scope.self, key: key, closedAt: state.withLock { $0.closedAt }, requestedAt: location)
        }
        return branch
      } catch {
        state.withLock { $0.failed(BranchKey(key), generation: generation) }
        throw error
      }
    }
    return KeyedBranchesState.Making(task: task)
  }

  /// Closes evicted branches, reporting what fails: no caller waits for them.
  @usableFromInline
  func close(_ branches: [Features], at location: SourceLocation) async {
    for branch in branches {
      do {
        try await branch.close(file: location.fileID, line: location.line)
      } catch {
        IssueReporting.report(Diagnostic(describing: error), severity: .failure, at: location)
      }
    }
  }
}
