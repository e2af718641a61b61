import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the features handed to a branch's loaders hold: they must not keep the branch alive, yet
/// must find it while something else does. Also what recognises the branch's own loads on a
/// thread's path.
///
/// Instead of a weak reference (which would give every branch a side table, and every retain of it
/// the slow path), the anchor counts the branch's holders: each handle of user features, each
/// child branch made through user features, each request through loader features that outlived
/// their load or through a branch tethered to this one, and the task of each async load in flight
/// (see "Lifetimes" in Docs/Architecture.md). The branch is alive while it has any: the anchor owns one reference to it from the first hold to the last
/// release. A request through loader features takes a hold only if there still is one, so it
/// never revives a released branch; only code that has a reference to the branch may hold it anew.
///
/// One per branch, made with it, and freed once the branch and every such features value are. It
/// is also where the branch's storage lives (its units, the context), so a
/// branch costs one allocation less: its tail holds the holder count, then the storage.
@usableFromInline
final class BranchAnchor: ManagedBuffer<BranchAnchor.Header, BranchAnchor.Word> {
  // Shared between threads (features are `Sendable`), though `ManagedBuffer` cannot be declared so:
  // `reference` is set by `attach`, before the branch is published, and only read afterwards; the
  // holder count is atomic; the storage follows the branch's rules.

  @usableFromInline
  struct Header {
    /// The branch without a reference count: valid while it has holders.
    @usableFromInline var reference: UncountedReference<Branch>?
  }

  /// The tail's unit. The holder count takes the first, the newest child (with the lock of the
  /// branch's children in its low bit) the second, the branch's overflow word the third; the
  /// storage starts right after them, aligned to 16 bytes, the most any Swift type needs.
  @usableFromInline typealias Word = UInt64

  /// The words of the tail before the storage.
  static var headerWords: Int { 3 }

  /// The loader features of a new anchor, with room for `storageByteCount` bytes of storage and no
  /// holder yet: the features own it.
  static func features(storageByteCount: Int) -> Features {
    let words = headerWords + (storageByteCount + MemoryLayout<Word>.stride - 1) / MemoryLayout<Word>.stride
    return Features(anchor: make(tailWords: words))
  }

  /// How many holders the branch has; 0 before the first and after the last. The tail's first word.
  private var holders: SharedWord { tailWord(0) }

  /// The branch's newest child (``newestChild``), its low bit set while the lock of the branch's
  /// children is taken (see ``withChildren(_:)``). The tail's second word.
  ///
  /// In the anchor rather than the branch: a child that does not hold its parent keeps the
  /// parent's anchor (its ``Branch/tether``), so it can leave the list even after the parent went.
  /// One word for both: a branch is aligned to 16 bytes, so its address leaves the low bit free.
  private var childrenWord: SharedWord { tailWord(1) }

  /// The bit of ``childrenWord`` that is set while someone walks or changes the list of children.
  private static var childrenLockBit: UInt { 1 }

  /// The branch's newest ``OverflowBlock``, retained; 0 before one is needed. The tail's third word.
  ///
  /// Only the branch's ``OverflowChain`` reads and writes it
  /// (``OverflowChain/unit(at:giveOut:layout:firstUnit:)``), and the branch frees the blocks in
  /// its deinit. Here rather than in the branch, whose object a word more puts in a
  /// larger malloc size class; the tail had the room, since the children's lock is a bit of
  /// ``childrenWord``, and the storage keeps its alignment.
  var overflow: SharedWord { tailWord(2) }

  /// The newest child branch still alive, each linking to the next older one: read and written
  /// only under ``withChildren(_:)``, which holds the lock bit set meanwhile.
  private var newestChild: UncountedReference<Branch>? {
    get {
      UncountedReference.ifAny(at: childrenWord.load(ordering: .relaxed) & ~Self.childrenLockBit)
    }
    set {
      let word = newValue?.address ?? 0
      assert(word & Self.childrenLockBit == 0, "a branch's address uses the lock bit")
      childrenWord.store(word | Self.childrenLockBit, ordering: .relaxed)
    }
  }

  /// Whether the branch has a child, read without the lock: for a branch that is going, whose
  /// list only a leaving child may still change (emptying it, never filling it).
  var hasChildren: Bool { childrenWord.load(ordering: .relaxed) & ~Self.childrenLockBit != 0 }

  /// Whether someone holds the lock of the branch's children: for the invariant checker, which
  /// expects it free once the tree is quiescent.
  var isChildrenLocked: Bool { childrenWord.load(ordering: .acquiring) & Self.childrenLockBit != 0 }

  /// Runs `body` with the list of the branch's children to itself.
  ///
  /// A spin lock on one bit of ``childrenWord``, not a pthread mutex: every branch takes its
  /// parent's twice (made and freed) for a few pointer writes, which a mutex behind a generic lazy
  /// reference made a large share of a request branch's cost (see the performance article). A
  /// contender yields its thread instead of spinning on it.
  /// The sanitizer sees the acquiring and releasing atomics, so the list's plain accesses are
  /// checked against them.
  func withChildren<R>(_ body: () throws -> R) rethrows -> R {
    let word = childrenWord
    while word.setBitsAcquiring(Self.childrenLockBit) & Self.childrenLockBit != 0 {
      sched_yield()
    }
    defer {
      // Only the holder of the lock changes the word, so the newest child read here is current.
      let newest = word.load(ordering: .relaxed) & ~Self.childrenLockBit
      word.store(newest, ordering: .releasing)
    }
    return try body()
  }

  // MARK: The list of children, each call under `withChildren`

  /// Puts `child`, a new branch, first in the list.
  func insertChild(_ child: Branch) {
    let reference = UncountedReference(child)
    child.olderSibling = newestChild
    newestChild?.borrow { $0.newerSibling = reference }
    newestChild = reference
    child.isLinked = true
  }

  /// Takes `child`, which is in the list, out of it.
  func removeChild(_ child: Branch) {
    child.olderSibling?.borrow { $0.newerSibling = child.newerSibling }
    if let newer = child.newerSibling {
      newer.borrow { $0.olderSibling = child.olderSibling }
    } else {
      newestChild = child.olderSibling
    }
    child.isLinked = false
  }

  /// Empties the list: as the branch goes, leaving the children that outlive it (those that do not
  /// hold it) unlinked.
  func removeAllChildren() {
    forEachChild { $0.isLinked = false }
    newestChild = nil
  }

  /// Calls `body` with each child in the list, newest first.
  func forEachChild(_ body: (Branch) -> Void) {
    var next = newestChild
    while let current = next {
      next = current.borrow { child in
        body(child)
        return child.olderSibling
      }
    }
  }

  /// Adds a holder to a branch the caller keeps alive (a new one, or one it has a reference to).
  func hold() {
    if holders.incrementCount() == 0 {
      reference!.retain()
    }
  }

  /// Makes the first holder of a new branch, which no other thread can see yet, taking over the
  /// reference the caller has given up (``UncountedReference/retaining(_:)``).
  func adopt() {
    holders.store(1, ordering: .relaxed)
  }

  /// Removes a holder; the last one releases the branch.
  func release() {
    if holders.decrementCount() == 1 {
      reference!.release()
    }
  }

  /// The branch, if it still has holders: what features that outlived their load resolve through.
  @usableFromInline var branch: Branch? {
    // The order matters: `branch` is a strong reference, made while the hold keeps the branch alive,
    // and only then is the hold released (possibly the last one, which releases the anchor's own
    // reference). Returning the uncounted reference, or releasing before taking it, would hand out a
    // branch that may already be freed.
    guard let branch = holdIfAlive() else { return nil }
    defer { release() }
    return branch
  }

  /// Holds this anchor's branch, and the tethers above it (``Branch/tether``), for one request
  /// through a branch below a tether.
  ///
  /// - Returns: What to release when the request ends; `nil` when one of them was released, and
  ///   the request must fail with ``FeaturesReleased``.
  func holdTethers() -> TetherHold? {
    var held: [BranchAnchor] = []
    var next: BranchAnchor? = self
    while let anchor = next {
      guard let branch = anchor.holdIfAlive() else {
        for anchor in held { anchor.release() }
        return nil
      }
      held.append(anchor)
      next = branch.tether
    }
    return TetherHold(anchors: held)
  }

  /// Adds a holder if the branch still has one, never reviving a released branch.
  func holdIfAlive() -> Branch? {
    var current = holders.load(ordering: .acquiring)
    while current != 0 {
      let (held, found) = holders.compareExchange(
        expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
      if held { return reference!.object }
      current = found
    }
    return nil
  }

  /// What lets features handed to a loader recognise their branch's load on a thread's path: the
  /// anchor's address. Unlike the branch's, it cannot be reused while any such features exist,
  /// since they keep the anchor alive.
  @inlinable @inline(__always)
  static func identity(_ anchor: UncountedReference<BranchAnchor>) -> UInt64 {
    UInt64(anchor.address)
  }
}

/// What user features hold: one of the branch's holders (see ``BranchAnchor``), released when the
/// last copy of those features is dropped.
@usableFromInline
final class BranchHandle: @unchecked Sendable {
  // Sendable: immutable; the anchor is shared as features share it.
  /// The branch's anchor: the branch keeps it, and this handle keeps the branch.
  private let anchor: UncountedReference<BranchAnchor>

  /// The first handle of `branch`, a new branch: it takes over the reference `branch` carries
  /// (``UncountedReference/retaining(_:)``), which becomes the one its anchor owns.
  @usableFromInline
  init(adopting branch: UncountedReference<Branch>) {
    anchor = branch.borrow { $0.anchor }
    anchor.borrow { $0.adopt() }
  }

  deinit {
    anchor.borrow { $0.release() }
  }
}

/// The holds a request through a tethered branch takes on the branches above it (see
/// ``BranchAnchor/holdTethers()``), released when it ends.
final class TetherHold: @unchecked Sendable {
  // Sendable: immutable; anchors are shared between threads as features share them.
  private let anchors: [BranchAnchor]

  init(anchors: [BranchAnchor]) {
    self.anchors = anchors
  }

  deinit {
    for anchor in anchors { anchor.release() }
  }
}
