import Synchronization

/// Who waits for whom among loads: a wait that would close a loop is refused, so a cycle across
/// threads or tasks fails with its path (``CircularDependency``) instead of hanging. Edges live only
/// while a blocking wait lasts, so the process's lock (``shared``) is taken only on contention.
package struct WaitGraph {
  package protocol Node: AnyObject {
    /// Whether it has ended: a wait for it no longer blocks, even before its waiters remove edges.
    var isFinished: Bool { get }
    /// A wait without an edge: a synchronous load's for its owner thread (which may be waiting).
    var waitsImplicitlyFor: (any Node)? { get }
  }

  /// What each waiter waits for: an async loader may wait for several loads, with `async let`.
  private var edges: [ObjectIdentifier: [any Node]] = [:]

  package init() {}

  /// Records that `waiter` waits for `node`; or returns the loop it would close: the nodes from
  /// `node` to the one that waits for `waiter` (empty when `node` is it).
  package mutating func add(_ waiter: any Node, waitingFor node: any Node) -> [any Node]? {
    if let loop = path(from: node, to: waiter) { return loop }
    edges[ObjectIdentifier(waiter), default: []].append(node)
    return nil
  }

  package mutating func remove(_ waiter: any Node, waitingFor node: any Node) {
    let key = ObjectIdentifier(waiter)
    guard var waits = edges[key], let index = waits.firstIndex(where: { $0 === node }) else { return }
    waits.remove(at: index)
    edges[key] = waits.isEmpty ? nil : waits
  }

  package func waitCount(for node: any Node) -> Int {
    edges.values.reduce(0) { count, waits in count + waits.count { $0 === node } }
  }

  /// The nodes from `start` to one that waits for `target`, through unfinished nodes, if any.
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
  /// `describeLoop` runs under the lock, so the nodes on the loop, all blocked, stay as it reads them.
  static func add<Loop>(_ waiter: any Node, waitingFor node: any Node, describeLoop: ([any Node]) -> Loop) -> Loop? {
    shared.withLock { graph in graph.add(waiter, waitingFor: node).map(describeLoop) }
  }

  static func remove(_ waiter: any Node, waitingFor node: any Node) {
    shared.withLock { $0.remove(waiter, waitingFor: node) }
  }

  /// A test hook.
  static func waitCount(for node: any Node) -> Int {
    shared.withLock { $0.waitCount(for: node) }
  }
}
