import Synchronization

/// Who waits for whom: threads for other threads' synchronous loads, async loads for other async
/// loads, closes for other closes' outcomes. One graph, one lock, one search: a wait that would
/// close a loop is refused, so that a cycle across threads or tasks fails with its path (or, for
/// closes, returns at once) instead of hanging.
///
/// Edges are recorded only while a wait lasts, and only for waits that block (a request that
/// finds its instance cached never comes here), so the lock is taken only on contention.
enum WaitGraph {
  /// Something that can wait, or be waited for.
  protocol Node: AnyObject {
    /// Whether it has ended: a wait for it no longer blocks anyone, even before its waiters
    /// remove their edges.
    var isFinished: Bool { get }
    /// What it waits for without a recorded edge: a synchronous load waits for its owner thread
    /// (which may itself be waiting).
    var waitsImplicitlyFor: (any Node)? { get }
  }

  /// Work that runs once and that others may wait for, apart from loads and closes: a renewal
  /// (a close of a branch where it forgot instances waits for its teardowns, a refresh holds the
  /// tree's turn) or a branch's start. What its task waits for is recorded as its own waits
  /// (``ClosesInTask/waitingAs``).
  final class Run: Node, Sendable {
    /// Set once the work ended: nothing waits for it any more.
    private let hasEnded = Atomic<Bool>(false)

    var isFinished: Bool { hasEnded.load(ordering: .sequentiallyConsistent) }

    /// It waits only through the waits it records.
    var waitsImplicitlyFor: (any Node)? { nil }

    /// The work ended.
    func end() {
      hasEnded.store(true, ordering: .sequentiallyConsistent)
    }
  }

  /// The recorded waits: what each waiter waits for (an async loader may wait for several loads
  /// at once, with `async let`).
  private static let edges = Lock<[ObjectIdentifier: [any Node]]>.make([:])

  /// Records that `waiter` waits for `node`, unless `node` already waits, directly or through
  /// others, for `waiter`.
  ///
  /// - Parameter describeLoop: Turns the loop into what the caller reports, given its nodes from
  ///   `node` to the one that waits for `waiter` (empty when `node` is `waiter`). It runs under the
  ///   graph's lock, so the nodes on the loop, all blocked, cannot move on while it reads them.
  /// - Returns: `nil` when the wait is recorded (the caller then calls ``remove(_:waitingFor:)``
  ///   when it ends), or what `describeLoop` made of the loop it would close.
  static func add<Loop>(
    _ waiter: any Node, waitingFor node: any Node, describeLoop: ([any Node]) -> Loop
  ) -> Loop? {
    edges.withLock { edges in
      if let loop = path(from: node, to: waiter, in: edges) { return describeLoop(loop) }
      edges[ObjectIdentifier(waiter), default: []].append(node)
      return nil
    }
  }

  /// Removes a wait recorded by ``add(_:waitingFor:describeLoop:)``.
  static func remove(_ waiter: any Node, waitingFor node: any Node) {
    edges.withLock { edges in
      let key = ObjectIdentifier(waiter)
      guard var waits = edges[key], let index = waits.firstIndex(where: { $0 === node }) else { return }
      waits.remove(at: index)
      edges[key] = waits.isEmpty ? nil : waits
    }
  }

  /// How many waits for `node` are recorded now: read by ``Features/waits``, a test hook.
  static func waitCount(for node: any Node) -> Int {
    edges.withLock { edges in edges.values.reduce(0) { count, waits in count + waits.count { $0 === node } } }
  }

  /// The nodes from `start` to one that waits for `target`, following unfinished nodes only, if
  /// there is such a path.
  private static func path(
    from start: any Node, to target: any Node, in edges: [ObjectIdentifier: [any Node]]
  ) -> [any Node]? {
    if start === target { return [] }
    // Depth first; each node reached remembers the node it was reached from.
    var reachedFrom: [ObjectIdentifier: any Node] = [:]
    var visited: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
    var stack = [start]
    while let node = stack.popLast() {
      guard !node.isFinished else { continue }
      var successors = edges[ObjectIdentifier(node)] ?? []
      if let implicit = node.waitsImplicitlyFor { successors.append(implicit) }
      for next in successors {
        if next === target {
          var loop = [node]
          while let previous = reachedFrom[ObjectIdentifier(loop[loop.count - 1])] { loop.append(previous) }
          return loop.reversed()
        }
        if visited.insert(ObjectIdentifier(next)).inserted {
          reachedFrom[ObjectIdentifier(next)] = node
          stack.append(next)
        }
      }
    }
    return nil
  }
}
