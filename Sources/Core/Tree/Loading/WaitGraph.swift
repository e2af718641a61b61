import Synchronization

/// Who waits for whom among loads: threads for other threads' synchronous loads, async loads for
/// other async loads. A wait that would close a loop is refused, so that a cycle across threads or
/// tasks fails with its path (``CircularDependency``) instead of hanging.
///
/// Only loads wait here: lifecycle work (closes, renewals, starts, makings) never waits for
/// lifecycle work (``LifecycleWork``), so it needs no graph. A value, tested as one; the process
/// keeps one under ``shared``'s lock. Edges are recorded only while a wait lasts, and only for
/// waits that block (a request that finds its instance cached never comes here), so the lock is
/// taken only on contention.
package struct WaitGraph {
  /// Something that can wait, or be waited for: a thread, a synchronous load, an async load.
  package protocol Node: AnyObject {
    /// Whether it has ended: a wait for it no longer blocks anyone, even before its waiters
    /// remove their edges.
    var isFinished: Bool { get }
    /// What it waits for without a recorded edge: a synchronous load waits for its owner thread
    /// (which may itself be waiting).
    var waitsImplicitlyFor: (any Node)? { get }
  }

  /// The recorded waits: what each waiter waits for (an async loader may wait for several loads
  /// at once, with `async let`).
  private var edges: [ObjectIdentifier: [any Node]] = [:]

  package init() {}

  /// Records that `waiter` waits for `node`, unless `node` already waits, directly or through
  /// others, for `waiter`.
  ///
  /// - Returns: `nil` when the wait is recorded (the caller then calls ``remove(_:waitingFor:)``
  ///   when it ends); otherwise the loop it would close: the nodes from `node` to the one that waits
  ///   for `waiter` (empty when `node` is `waiter`).
  package mutating func add(_ waiter: any Node, waitingFor node: any Node) -> [any Node]? {
    if let loop = path(from: node, to: waiter) { return loop }
    edges[ObjectIdentifier(waiter), default: []].append(node)
    return nil
  }

  /// Removes a wait recorded by ``add(_:waitingFor:)``.
  package mutating func remove(_ waiter: any Node, waitingFor node: any Node) {
    let key = ObjectIdentifier(waiter)
    guard var waits = edges[key], let index = waits.firstIndex(where: { $0 === node }) else { return }
    waits.remove(at: index)
    edges[key] = waits.isEmpty ? nil : waits
  }

  /// How many waits for `node` are recorded.
  package func waitCount(for node: any Node) -> Int {
    edges.values.reduce(0) { count, waits in count + waits.count { $0 === node } }
  }

  /// The nodes from `start` to one that waits for `target`, following unfinished nodes only, if
  /// there is such a path.
  private func path(from start: any Node, to target: any Node) -> [any Node]? {
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

extension WaitGraph {
  /// The loads' waits of the whole process: Arbor's one process-wide lock.
  private static let shared = Lock<WaitGraph>.make(WaitGraph())

  /// Records in the process's graph that `waiter` waits for `node`, unless that closes a loop.
  ///
  /// - Parameter describeLoop: Turns the loop into what the caller reports. It runs under the
  ///   graph's lock, so the nodes on the loop, all blocked, cannot move on while it reads them.
  /// - Returns: `nil` when the wait is recorded; otherwise what `describeLoop` made of the loop.
  static func add<Loop>(_ waiter: any Node, waitingFor node: any Node, describeLoop: ([any Node]) -> Loop) -> Loop? {
    shared.withLock { graph in graph.add(waiter, waitingFor: node).map(describeLoop) }
  }

  /// Removes from the process's graph a wait recorded by ``add(_:waitingFor:describeLoop:)``.
  static func remove(_ waiter: any Node, waitingFor node: any Node) {
    shared.withLock { $0.remove(waiter, waitingFor: node) }
  }

  /// How many waits for `node` the process's graph records now: a test hook.
  static func waitCount(for node: any Node) -> Int {
    shared.withLock { $0.waitCount(for: node) }
  }
}
