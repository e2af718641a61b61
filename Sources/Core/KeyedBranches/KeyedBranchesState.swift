/// What a ``KeyedBranches`` holds, and its rules: which branch a key has, who is using it, which
/// branches are due to be closed. Every method runs under the set's lock and does no I/O: the set
/// closes the branches these methods hand back after it releases the lock.
///
/// Not generic: keys are type-erased (``BranchKey``), so this code is compiled once, specialised, in Arbor. A
/// generic state used from another module runs unspecialised, looking up the metadata of its
/// dictionary and entries on every request (it cost three times as much).
struct KeyedBranchesState: Sendable {
  typealias Key = BranchKey

  /// How far a key's branch has come.
  enum Phase: Sendable {
    /// Its context is being made and the branch with it, in this task, which every requester awaits.
    case opening(Task<Features, any Error>)
    /// Made.
    case open(Features)
  }

  /// A key's branch.
  struct Entry: Sendable {
    /// Tells this branch from a later one of the same key.
    var generation: UInt64
    var phase: Phase
    /// Requests using the branch now: it is never evicted while one runs.
    var leases: Int
    /// When the last request using it began or ended.
    var lastUse: Duration
    /// Its key's place in ``KeyedBranchesState/recency``.
    var position: RecencyList<Key>.Index
  }

  /// A branch evicted while requests were using it: closed when the last of them ends.
  struct Retiring: Sendable {
    var branch: Features
    var leases: Int
  }

  /// A request's hold on a key's branch, until ``release(_:generation:now:)``.
  enum Lease: Sendable {
    /// The branch.
    case open(Features, generation: UInt64)
    /// The task making it.
    case opening(Task<Features, any Error>, generation: UInt64)

    var generation: UInt64 {
      switch self {
      case .open(_, let generation), .opening(_, let generation): generation
      }
    }
  }

  private(set) var entries: [Key: Entry] = [:]
  /// Keys, least recently used first.
  private var recency = RecencyList<Key>()
  private var retiring: [UInt64: Retiring] = [:]
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
    _ key: Key, now: Duration, opening open: (_ generation: UInt64) -> Task<Features, any Error>
  ) -> Lease {
    let existing: (Lease, RecencyList<Key>.Index)? = withEntry(key) { entry in
      entry.leases += 1
      entry.lastUse = now
      switch entry.phase {
      case .open(let branch): return (.open(branch, generation: entry.generation), entry.position)
      case .opening(let task): return (.opening(task, generation: entry.generation), entry.position)
      }
    }
    if let (lease, position) = existing {
      recency.moveToBack(position)
      return lease
    }
    nextGeneration += 1
    let task = open(nextGeneration)
    entries[key] = Entry(
      generation: nextGeneration, phase: .opening(task), leases: 1, lastUse: now, position: recency.append(key))
    return .opening(task, generation: nextGeneration)
  }

  /// Runs `body` on `key`'s entry in place: one lookup, no copy written back.
  private mutating func withEntry<R>(_ key: Key, _ body: (inout Entry) -> R) -> R? {
    guard let index = entries.index(forKey: key) else { return nil }
    return body(&entries.values[index])
  }

  /// Records that `key`'s branch of `generation` is made, if the key still has that branch.
  ///
  /// - Returns: The branch, when it no longer belongs to the set (the set was closed meanwhile) and
  ///   the caller must close it.
  mutating func opened(_ key: Key, generation: UInt64, branch: Features) -> Features? {
    guard entries[key]?.generation == generation else { return branch }
    entries[key]?.phase = .open(branch)
    return nil
  }

  /// Forgets `key`'s branch of `generation`, whose making failed: the next request tries again.
  mutating func failed(_ key: Key, generation: UInt64) {
    guard let entry = entries[key], entry.generation == generation else { return }
    entries[key] = nil
    recency.remove(entry.position)
  }

  /// Ends a lease.
  ///
  /// - Returns: A branch to close: one evicted while in use, whose last lease this was.
  mutating func release(_ key: Key, generation: UInt64, now: Duration) -> Features? {
    let released: RecencyList<Key>.Index?? = withEntry(key) { entry in
      guard entry.generation == generation else { return nil }
      entry.leases -= 1
      entry.lastUse = now
      return entry.position
    }
    if case .some(.some(let position)) = released {
      recency.moveToBack(position)
      return nil
    }
    guard var retired = retiring[generation] else { return nil }
    retired.leases -= 1
    if retired.leases > 0 {
      retiring[generation] = retired
      return nil
    }
    retiring[generation] = nil
    return retired.branch
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
      entries[key] = nil
      recency.remove(current)
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
    case .opening(let task):
      return .wait(task)
    case .open(let branch):
      entries[key] = nil
      recency.remove(entry.position)
      if entry.leases == 0 { return .close(branch) }
      retiring[entry.generation] = Retiring(branch: branch, leases: entry.leases)
      return .none
    }
  }

  /// What ``remove(_:)`` leaves to its caller.
  enum Removal {
    case none
    case wait(Task<Features, any Error>)
    case close(Features)
  }

  /// Closes the set: from now on it makes no branch.
  ///
  /// - Returns: Every branch it held, in use or not, and the tasks still making one; `nil` when it
  ///   was already closed.
  mutating func close(at location: SourceLocation) -> (branches: [Features], opening: [Task<Features, any Error>])? {
    guard closedAt == nil else { return nil }
    closedAt = location
    var branches = retiring.values.map(\.branch)
    var opening: [Task<Features, any Error>] = []
    for entry in entries.values {
      switch entry.phase {
      case .open(let branch): branches.append(branch)
      case .opening(let task): opening.append(task)
      }
    }
    entries = [:]
    recency = RecencyList()
    retiring = [:]
    return (branches, opening)
  }
}
