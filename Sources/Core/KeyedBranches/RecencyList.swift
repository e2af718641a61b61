/// Elements in order of last use, least recent first: a doubly linked list in one array, so moving
/// an element to the back and removing one are O(1) and allocate nothing once the array has grown.
///
/// ``KeyedBranches`` keeps its keys in one, so eviction looks at the least recently used first.
struct RecencyList<Element: Sendable>: Sendable {
  /// A position in the list; stays valid until the element is removed.
  typealias Index = Int

  private struct Node {
    var element: Element?
    var previous: Index
    var next: Index
  }

  private static var none: Index { -1 }

  private var nodes: [Node] = []
  /// Positions of removed nodes, reused before the array grows.
  private var free: [Index] = []
  private var head: Index = Self.none
  private var tail: Index = Self.none

  /// The least recently used element's position, if any.
  var first: Index? { head == Self.none ? nil : head }

  /// The position after `index`, toward the most recently used.
  func index(after index: Index) -> Index? {
    let next = nodes[index].next
    return next == Self.none ? nil : next
  }

  /// The element at `index`.
  subscript(index: Index) -> Element {
    nodes[index].element!
  }

  /// Adds `element` as the most recently used.
  ///
  /// - Returns: Its position.
  mutating func append(_ element: Element) -> Index {
    let node = Node(element: element, previous: tail, next: Self.none)
    let index: Index
    if let reused = free.popLast() {
      index = reused
      nodes[index] = node
    } else {
      index = nodes.count
      nodes.append(node)
    }
    link(index)
    return index
  }

  /// Makes the element at `index` the most recently used.
  mutating func moveToBack(_ index: Index) {
    guard index != tail else { return }
    unlink(index)
    nodes[index].previous = tail
    nodes[index].next = Self.none
    link(index)
  }

  /// Removes the element at `index`.
  mutating func remove(_ index: Index) {
    unlink(index)
    nodes[index].element = nil
    free.append(index)
  }

  /// Links a node whose `previous` is the current tail at the back.
  private mutating func link(_ index: Index) {
    if tail == Self.none { head = index } else { nodes[tail].next = index }
    tail = index
  }

  private mutating func unlink(_ index: Index) {
    let (previous, next) = (nodes[index].previous, nodes[index].next)
    if previous == Self.none { head = next } else { nodes[previous].next = next }
    if next == Self.none { tail = previous } else { nodes[next].previous = previous }
  }
}
