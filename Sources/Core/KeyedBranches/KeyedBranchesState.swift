/// What a ``KeyedBranches`` holds, and its rules: which branch a key has, who is using it, which
/// branches are due to be closed. Every method runs under the set's lock and does no I/O: the set
/// closes the branches these methods hand back after it releases the lock.
///
/// Not generic: keys are type-erased (``BranchKey``), so this code is compiled once, specialised, in Arbor. A
/// generic state used from another module runs unspecialised, looking up the metadata of its
/// dictionary and entries on every request (it cost three times as much).
struct KeyedBranchesState: Sendable {
  typealias Key = BranchKey

  /// A key's branch being made: the task making its context and the branch with it, which every
  /// requester awaits. A making never waits for a making: inside one, requests of keyed branches
  /// throw ``KeyedBranchesCycle``.
  struct Making: Sendable {
    let task: Task<Features, any Error>
  }

  /// How far a key's branch has come.
  enum Phase: Sendable {
    /// Its context is being made and the branch with it.
    case opening(Making)
    /// Made.
    case open(Features)
  }

  /// A key's branch. A class, so that a lease holds its entry and gives it back without looking
  /// the key up again.
  final class KeyedBranch: @unchecked Sendable {
    // Sendable: every property is read and written under the set's lock only.
    /// Tells this branch from a later one of the same key.
    let generation: UInt64
    var phase: Phase
    /// Requests using the branch now: it is never evicted while one runs.
    var leases: Int
    /// When the last request using it began or ended.
    var lastUse: Duration
    /// Its key's place in ``KeyedBranchesState/recency``, while ``membership`` is `held`.
    var position: RecencyList<Key>.Index
    /// Whether the set still holds it.
    var membership = Membership.held

    init(generation: UInt64, phase: Phase, leases: Int, lastUse: Duration, position: RecencyList<Key>.Index) {
      self.generation = generation
      self.phase = phase
      self.leases = leases
      self.lastUse = lastUse
      self.position = position
    }
  }

  /// Whether the set still holds an entry, and who closes its branch when it does not.
  enum Membership: Sendable {
    /// In ``KeyedBranchesState/entries``.
    case held
    /// Evicted or removed while requests were using it: the last of them closes it.
    case retiring
    /// Forgotten (its making failed) or taken by the set's close, which closes it.
    case dropped
  }

  /// A request's hold on a key's branch, until ``release(_:now:)``.
  enum Lease: Sendable {
    /// The branch.
    case open(Features, KeyedBranch)
    /// The branch being made.
    case opening(Making, KeyedBranch)
  }

  private(set) var entries: [Key: KeyedBranch] = [:]
  /// Keys, least recently used first.
  private var recency = RecencyList<Key>()
  /// Entries evicted or removed while in use, until their last lease ends.
  private var retiring: [ObjectIdentifier: KeyedBranch] = [:]
  private var nextGeneration: UInt64 = 0
  /// When a request next looks for idle branches: a look walks the least recently used, so requests
  /// look only every sixteenth of the idle time.
  private var nextIdleLook: Duration = .zero
  /// Where ``KeyedBranches/close(file:line:)`` was first called; `nil` while the set is open.
  private(set) var closedAt: SourceLocation?

  /// A lease on `key`'s branch, starting one with `open` when the key has none.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - now: The set's clock.
  ///   - open: Starts making the branch; called at most once, for a key without one.
  /// - Returns: The lease.
  mutating func lease(
    _ key: Key, now: Duration, opening open: (_ generation: UInt64) -> Making
  ) -> Lease {
    if let entry = entries[key] {
      entry.leases += 1
      entry.lastUse = now
      recency.moveToBack(entry.position)
      switch entry.phase {
      case .open(let branch): return .open(branch, entry)
      case .opening(let making): return .opening(making, entry)
      }
    }
    nextGeneration += 1
    let making = open(nextGeneration)
    let entry = KeyedBranch(
      generation: nextGeneration, phase: .opening(making), leases: 1, lastUse: now, position: recency.append(key))
    entries[key] = entry
    return .opening(making, entry)
  }

  /// Takes `key`'s entry out of the set, and out of ``recency``, whose place it frees; a retiring
  /// entry is kept in ``retiring`` until its last lease ends.
  private mutating func take(_ key: Key, _ entry: KeyedBranch, becoming membership: Membership) {
    entries[key] = nil
    recency.remove(entry.position)
    entry.membership = membership
    if membership == .retiring { retiring[ObjectIdentifier(entry)] = entry }
  }

  /// Records that `key`'s branch of `generation` is made, if the key still has that branch.
  ///
  /// - Returns: The branch, when it no longer belongs to the set (the set was closed meanwhile) and
  ///   the caller must close it.
  mutating func opened(_ key: Key, generation: UInt64, branch: Features) -> Features? {
    guard let entry = entries[key], entry.generation == generation else { return branch }
    entry.phase = .open(branch)
    return nil
  }

  /// Forgets `key`'s branch of `generation`, whose making failed: the next request tries again.
  mutating func failed(_ key: Key, generation: UInt64) {
    guard let entry = entries[key], entry.generation == generation else { return }
    take(key, entry, becoming: .dropped)
  }

  /// Ends a lease on `entry`.
  ///
  /// - Returns: A branch to close: one evicted while in use, whose last lease this was.
  mutating func release(_ entry: KeyedBranch, now: Duration) -> Features? {
    entry.leases -= 1
    entry.lastUse = now
    switch entry.membership {
    case .held:
      recency.moveToBack(entry.position)
      return nil
    case .retiring:
      guard entry.leases == 0 else { return nil }
      retiring[ObjectIdentifier(entry)] = nil
      entry.membership = .dropped
      guard case .open(let branch) = entry.phase else { return nil }
      return branch
    case .dropped:
      return nil
    }
  }

  /// What a request evicts before it takes its lease: nothing, unless the set is full (for a new
  /// key) or it is time to look for idle branches.
  ///
  /// - Returns: The evicted branches, to close.
  mutating func evictDue(adding key: Key, idleTime: Duration?, maximumCount: Int?, now: Duration) -> [Features] {
    let full = maximumCount.map { entries.count >= $0 && entries[key] == nil } ?? false
    let lookForIdle = idleTime.map { _ in now >= nextIdleLook } ?? false
    guard full || lookForIdle else { return [] }
    if let idleTime, lookForIdle { nextIdleLook = now + idleTime / 16 }
    // Room for the new key's branch, when it needs one.
    return evict(
      idleTime: lookForIdle ? idleTime : nil, maximumCount: full ? maximumCount.map { $0 - 1 } : nil, now: now)
  }

  /// Evicts the branches unused for `idleTime` or longer, and the least recently used ones beyond
  /// `maximumCount`. Branches in use or still being made stay.
  ///
  /// - Returns: The evicted branches, to close.
  mutating func evict(idleTime: Duration?, maximumCount: Int?, now: Duration) -> [Features] {
    var evicted: [Features] = []
    var excess = maximumCount.map { entries.count - $0 } ?? 0
    var position = recency.first
    while let current = position {
      position = recency.index(after: current)
      let key = recency[current]
      guard let entry = entries[key], entry.leases == 0, case .open(let branch) = entry.phase else { continue }
      let idle = idleTime.map { now - entry.lastUse >= $0 } ?? false
      // Least recently used first: once a branch is neither idle nor in excess, none after it is.
      guard idle || excess > 0 else { break }
      take(key, entry, becoming: .dropped)
      evicted.append(branch)
      excess -= 1
    }
    return evicted
  }

  /// Takes `key` out of the set.
  ///
  /// - Returns: What to do: wait for the branch being made and try again, close the branch now, or
  ///   nothing (no branch, or one in use, which its last lease closes).
  mutating func remove(_ key: Key) -> Removal {
    guard let entry = entries[key] else { return .none }
    switch entry.phase {
    case .opening(let making):
      return .wait(making)
    case .open(let branch):
      if entry.leases == 0 {
        take(key, entry, becoming: .dropped)
        return .close(branch)
      }
      take(key, entry, becoming: .retiring)
      return .none
    }
  }

  /// What ``remove(_:)`` leaves to its caller.
  enum Removal {
    case none
    /// The branch is being made.
    case wait(Making)
    case close(Features)
  }

  /// Closes the set: from now on it makes no branch.
  ///
  /// - Returns: Every branch it held, in use or not, and the tasks still making one; `nil` when it
  ///   was already closed.
  mutating func close(
    at location: SourceLocation
  ) -> (branches: [Features], opening: [Making])? {
    guard closedAt == nil else { return nil }
    closedAt = location
    var branches = retiring.values.compactMap { entry -> Features? in
      entry.membership = .dropped
      guard case .open(let branch) = entry.phase else { return nil }
      return branch
    }
    var opening: [Making] = []
    for entry in entries.values {
      entry.membership = .dropped
      switch entry.phase {
      case .open(let branch): branches.append(branch)
      case .opening(let making): opening.append(making)
      }
    }
    entries = [:]
    recency = RecencyList()
    retiring = [:]
    return (branches, opening)
  }
}
