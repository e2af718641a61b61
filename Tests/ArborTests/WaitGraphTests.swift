import Arbor
import Testing

/// The graph of who waits for whom among loads, as a value: each wait added or removed, each node
/// finished, then what the graph answers, with no threads and no sleeps.
@Suite struct WaitGraphTests {
  /// A thread, a synchronous load or an async load, as the graph sees one.
  final class Node: WaitGraph.Node, CustomStringConvertible {
    let name: String
    var isFinished = false
    var waitsImplicitlyFor: (any WaitGraph.Node)?

    init(_ name: String, waitsImplicitlyFor owner: Node? = nil) {
      self.name = name
      waitsImplicitlyFor = owner
    }

    var description: String { name }
  }

  /// The names along a loop `add` answered, to compare with what it should be.
  static func names(_ loop: [any WaitGraph.Node]?) -> [String]? {
    loop?.map { ($0 as? Node)?.name ?? "a node of no test" }
  }

  @Test func waitsAddedAndRemovedAreCounted() {
    var graph = WaitGraph()
    let (a, b, c) = (Node("a"), Node("b"), Node("c"))
    #expect(graph.add(a, waitingFor: c) == nil)
    #expect(graph.add(b, waitingFor: c) == nil)
    #expect(graph.waitCount(for: c) == 2)
    #expect(graph.waitCount(for: a) == 0)
    graph.remove(a, waitingFor: c)
    #expect(graph.waitCount(for: c) == 1)
    // A wait never recorded is not there to remove.
    graph.remove(a, waitingFor: c)
    graph.remove(c, waitingFor: b)
    #expect(graph.waitCount(for: c) == 1)
    #expect(graph.waitCount(for: b) == 0)
    graph.remove(b, waitingFor: c)
    #expect(graph.waitCount(for: c) == 0)
    // With b's wait gone, c may wait for b.
    #expect(graph.add(c, waitingFor: b) == nil)
    #expect(graph.waitCount(for: b) == 1)
  }

  @Test func aWaitForItselfIsRefusedWithAnEmptyLoopAndNotRecorded() {
    var graph = WaitGraph()
    let a = Node("a")
    #expect(Self.names(graph.add(a, waitingFor: a)) == [])
    #expect(graph.waitCount(for: a) == 0)
  }

  @Test func aLoopOfTwoIsRefusedWithTheNodeThatWaitsForTheWaiter() {
    var graph = WaitGraph()
    let (a, b) = (Node("a"), Node("b"))
    #expect(graph.add(a, waitingFor: b) == nil)
    #expect(Self.names(graph.add(b, waitingFor: a)) == ["a"])
    #expect(graph.waitCount(for: a) == 0)
    #expect(graph.waitCount(for: b) == 1)
  }

  @Test func aLoopOfFourIsRefusedWithItsPathInOrder() {
    var graph = WaitGraph()
    let (a, b, c, d) = (Node("a"), Node("b"), Node("c"), Node("d"))
    let (x, y) = (Node("x"), Node("y"))
    #expect(graph.add(a, waitingFor: b) == nil)
    #expect(graph.add(b, waitingFor: x) == nil)  // a side path, searched too, that leads nowhere
    #expect(graph.add(x, waitingFor: y) == nil)
    #expect(graph.add(b, waitingFor: c) == nil)
    #expect(graph.add(c, waitingFor: d) == nil)
    #expect(Self.names(graph.add(d, waitingFor: a)) == ["a", "b", "c"])
    #expect(Self.names(graph.add(d, waitingFor: b)) == ["b", "c"])
    // Neither refused wait is recorded: only a's wait for b counts.
    #expect(graph.waitCount(for: a) == 0)
    #expect(graph.waitCount(for: b) == 1)
    // Entering the loop from outside closes none.
    #expect(graph.add(y, waitingFor: c) == nil)
  }

  @Test func aLoopThroughAFinishedNodeIsNoLoop() {
    var graph = WaitGraph()
    let (a, b, c) = (Node("a"), Node("b"), Node("c"))
    #expect(graph.add(a, waitingFor: b) == nil)
    #expect(graph.add(b, waitingFor: c) == nil)
    #expect(Self.names(graph.add(c, waitingFor: a)) == ["a", "b"])
    // b has ended, though a's and its own waits are still recorded: a wait through it blocks no one.
    b.isFinished = true
    #expect(graph.add(c, waitingFor: a) == nil)
    #expect(graph.waitCount(for: a) == 1)
    // Nor is a wait for a finished node, which returns at once.
    #expect(graph.add(c, waitingFor: b) == nil)
  }

  @Test func aSynchronousLoadWaitsForItsOwnerThread() {
    var graph = WaitGraph()
    let (first, second) = (Node("thread 1"), Node("thread 2"))
    let firstLoad = Node("load of thread 1", waitsImplicitlyFor: first)
    let secondLoad = Node("load of thread 2", waitsImplicitlyFor: second)
    // Thread 1, inside its load, waits for thread 2's.
    #expect(graph.add(first, waitingFor: secondLoad) == nil)
    // Thread 2, inside its load, waiting for thread 1's would never end: no edge was recorded from
    // either load, yet each waits for its owner.
    #expect(
      Self.names(graph.add(second, waitingFor: firstLoad)) == ["load of thread 1", "thread 1", "load of thread 2"])
    // Once thread 1's load has ended, a wait for it returns at once.
    firstLoad.isFinished = true
    #expect(graph.add(second, waitingFor: firstLoad) == nil)
  }

  @Test func anAsyncLoadWaitingForSeveralLoadsAtOnceWaitsForEach() {
    var graph = WaitGraph()
    let (loader, first, second, third) = (Node("loader"), Node("first"), Node("second"), Node("third"))
    // `async let` of two loads.
    #expect(graph.add(loader, waitingFor: first) == nil)
    #expect(graph.add(loader, waitingFor: second) == nil)
    #expect(graph.add(second, waitingFor: third) == nil)
    #expect(Self.names(graph.add(first, waitingFor: loader)) == ["loader"])
    #expect(Self.names(graph.add(third, waitingFor: loader)) == ["loader", "second"])
    // The first load ends and its wait is removed; the other still counts.
    graph.remove(loader, waitingFor: first)
    #expect(graph.add(first, waitingFor: loader) == nil)
    #expect(Self.names(graph.add(third, waitingFor: loader)) == ["loader", "second"])
  }

  @Test func removingOneOfTwoIdenticalWaitsKeepsTheOther() {
    var graph = WaitGraph()
    let (loader, load) = (Node("loader"), Node("load"))
    #expect(graph.add(loader, waitingFor: load) == nil)
    #expect(graph.add(loader, waitingFor: load) == nil)
    #expect(graph.waitCount(for: load) == 2)
    graph.remove(loader, waitingFor: load)
    #expect(graph.waitCount(for: load) == 1)
    #expect(Self.names(graph.add(load, waitingFor: loader)) == ["loader"])
    graph.remove(loader, waitingFor: load)
    #expect(graph.waitCount(for: load) == 0)
    #expect(graph.add(load, waitingFor: loader) == nil)
  }

  @Test func aDiamondIsNoLoop() {
    var graph = WaitGraph()
    let (top, left, right, bottom) = (Node("top"), Node("left"), Node("right"), Node("bottom"))
    #expect(graph.add(top, waitingFor: left) == nil)
    #expect(graph.add(top, waitingFor: right) == nil)
    #expect(graph.add(left, waitingFor: bottom) == nil)
    // Bottom is reached from top along two paths, but nothing leads back up.
    #expect(graph.add(right, waitingFor: bottom) == nil)
    #expect(graph.add(left, waitingFor: right) == nil)
    #expect(graph.waitCount(for: bottom) == 2)
    #expect(graph.waitCount(for: right) == 2)
    // Bottom waiting for top would close a loop, along any of the paths down.
    let loop = Self.names(graph.add(bottom, waitingFor: top)) ?? []
    #expect([["top", "left"], ["top", "right"], ["top", "left", "right"]].contains(loop), "loop \(loop)")
  }
}

// MARK: - Every sequence of events

extension WaitGraphTests {
  /// Four nodes: three that wait only through recorded edges (threads, async loads) and a
  /// synchronous load owned by the first.
  static let nodeCount = 4
  static let implicitWaits: [Int: Int] = [3: 0]

  enum Event: Equatable, CustomStringConvertible {
    case add(Int, waitingFor: Int)
    case remove(Int, waitingFor: Int)
    case finish(Int)

    var description: String {
      switch self {
      case .add(let waiter, let node): "add \(waiter)→\(node)"
      case .remove(let waiter, let node): "remove \(waiter)→\(node)"
      case .finish(let node): "finish \(node)"
      }
    }
  }

  /// What the graph should hold, kept the simplest way: every recorded wait in a list.
  struct Model {
    var edges: [(waiter: Int, node: Int)] = []
    var finished: Set<Int> = []

    /// What `node` waits for: nothing once finished; else its recorded waits and its owner.
    func successors(of node: Int) -> [Int] {
      guard !finished.contains(node) else { return [] }
      return edges.filter { $0.waiter == node }.map(\.node) + (WaitGraphTests.implicitWaits[node].map { [$0] } ?? [])
    }

    /// Whether `waiter` waiting for `node` closes a loop: `node` is `waiter`, or reaches it.
    func closesLoop(_ waiter: Int, waitingFor node: Int) -> Bool {
      var reached: Set<Int> = [node]
      var next = [node]
      while let current = next.popLast() {
        if current == waiter { return true }
        for successor in successors(of: current) where reached.insert(successor).inserted { next.append(successor) }
      }
      return false
    }

    /// Whether `loop` is one the graph may answer for `waiter` waiting for `node`: a path of waits
    /// from `node`, through unfinished nodes each visited once, to one that waits for `waiter`.
    func isLoop(_ loop: [Int], of waiter: Int, waitingFor node: Int) -> Bool {
      if node == waiter { return loop.isEmpty }
      guard loop.first == node, Set(loop).count == loop.count, let last = loop.last else { return false }
      let steps = zip(loop, loop.dropFirst()).allSatisfy { successors(of: $0).contains($1) }
      return steps && successors(of: last).contains(waiter)
    }

    func waitCount(for node: Int) -> Int { edges.count { $0.node == node } }
  }

  @Test func everySequenceOfWaitsAnswersAsReachabilityFromScratch() {
    let nodes = (0..<Self.nodeCount).map { Node("\($0)") }
    for (load, owner) in Self.implicitWaits { nodes[load].waitsImplicitlyFor = nodes[owner] }
    let pairs = (0..<Self.nodeCount).flatMap { waiter in (0..<Self.nodeCount).map { (waiter, $0) } }
    var sequences = 0
    // How many refused waits found a loop of each length: all must be seen.
    var loopsByLength: [Int: Int] = [:]

    /// Applies each possible next event to a copy of `graph`, then goes on from there: the graph is
    /// a value, and finishing a node is undone on the way back.
    func explore(_ graph: WaitGraph, _ model: Model, _ events: [Event], depth: Int) {
      sequences += 1
      guard depth > 0 else { return }
      var next: [Event] = pairs.map { .add($0, waitingFor: $1) }
      // Removes of what is recorded, and of one wait that is not.
      next += model.edges.map { .remove($0.waiter, waitingFor: $0.node) }
      if let absent = pairs.first(where: { pair in !model.edges.contains { $0 == pair } }) {
        next.append(.remove(absent.0, waitingFor: absent.1))
      }
      next += (0..<Self.nodeCount).filter { !model.finished.contains($0) }.map { .finish($0) }
      var tried: [Event] = []
      for event in next where !tried.contains(event) {
        tried.append(event)
        var (graph, model, events) = (graph, model, events + [event])
        let context = Comment(rawValue: "after \(events)")
        switch event {
        case .add(let waiter, let node):
          let answer = graph.add(nodes[waiter], waitingFor: nodes[node])
          if let answer {
            let loop = answer.map { found in nodes.firstIndex { $0 === found } ?? -1 }
            #expect(model.closesLoop(waiter, waitingFor: node), context)
            #expect(model.isLoop(loop, of: waiter, waitingFor: node), "loop \(loop) \(context)")
            loopsByLength[loop.count, default: 0] += 1
          } else {
            #expect(!model.closesLoop(waiter, waitingFor: node), context)
            model.edges.append((waiter, node))
          }
        case .remove(let waiter, let node):
          graph.remove(nodes[waiter], waitingFor: nodes[node])
          if let index = model.edges.firstIndex(where: { $0 == (waiter, node) }) { model.edges.remove(at: index) }
        case .finish(let node):
          nodes[node].isFinished = true
          model.finished.insert(node)
        }
        for node in 0..<Self.nodeCount {
          #expect(graph.waitCount(for: nodes[node]) == model.waitCount(for: node), "node \(node) \(context)")
        }
        explore(graph, model, events, depth: depth - 1)
        if case .finish(let node) = event { nodes[node].isFinished = false }
      }
    }

    explore(WaitGraph(), Model(), [], depth: 4)
    #expect(sequences > 100_000)
    #expect((0...3).allSatisfy { loopsByLength[$0, default: 0] > 0 }, "loops by length: \(loopsByLength)")
  }
}
