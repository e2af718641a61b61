import Synchronization

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
    @usableFromInline var reference: Unmanaged<Branch>?
  }

  /// The tail's unit. The holder count takes the first; the storage starts right after it, 32 bytes
  /// into the object, so it is aligned to 16 bytes, the most any Swift type needs.
  @usableFromInline typealias Word = UInt64

  /// The loader features of a new anchor, with room for `storageByteCount` bytes of storage and no
  /// holder yet: the features own it.
  static func features(storageByteCount: Int) -> Features {
    let words = 1 + (storageByteCount + MemoryLayout<Word>.stride - 1) / MemoryLayout<Word>.stride
    let anchor = unsafeDowncast(create(minimumCapacity: words) { _ in Header() }, to: BranchAnchor.self)
    anchor.holders.initialize(to: Atomic(0))
    return Features(anchor: anchor)
  }

  /// How many holders the branch has; 0 before the first and after the last. The tail's first word.
  private var holders: UnsafeMutablePointer<Atomic<Int>> {
    withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0).assumingMemoryBound(to: Atomic<Int>.self) }
  }

  /// The branch's storage: the rest of the tail.
  var storage: UnsafeMutableRawPointer {
    withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0 + 1) }
  }

  /// The branch without a reference count: valid while it has holders.
  @inlinable var reference: Unmanaged<Branch>? {
    withUnsafeMutablePointerToHeader { $0.pointee.reference }
  }

  func attach(_ branch: Branch) {
    withUnsafeMutablePointerToHeader { $0.pointee.reference = Unmanaged.passUnretained(branch) }
  }

  /// Adds a holder to a branch the caller keeps alive (a new one, or one it has a reference to).
  func hold() {
    if holders.pointee.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
      _ = reference.unsafelyUnwrapped.retain()
    }
  }

  /// Makes the first holder of a new branch, which no other thread can see yet, taking over the
  /// reference the caller has given up (`Unmanaged.passRetained`).
  func adopt() {
    holders.pointee.store(1, ordering: .relaxed)
  }

  /// Removes a holder; the last one releases the branch.
  func release() {
    if holders.pointee.wrappingSubtract(1, ordering: .acquiringAndReleasing).oldValue == 1 {
      reference.unsafelyUnwrapped.release()
    }
  }

  /// The branch, if it still has holders: what features that outlived their load resolve through.
  @usableFromInline var branch: Branch? {
    // The order matters: `branch` is a strong reference, made while the hold keeps the branch alive,
    // and only then is the hold released (possibly the last one, which releases the anchor's own
    // reference). Returning the unmanaged reference, or releasing before taking it, would hand out a
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
    var current = holders.pointee.load(ordering: .acquiring)
    while current > 0 {
      let (held, found) = holders.pointee.compareExchange(
        expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
      if held { return reference.unsafelyUnwrapped.takeUnretainedValue() }
      current = found
    }
    return nil
  }

  /// What lets features handed to a loader recognise their branch's load on a thread's path: the
  /// anchor's address. Unlike the branch's, it cannot be reused while any such features exist,
  /// since they keep the anchor alive.
  @inlinable @inline(__always)
  static func identity(_ anchor: Unmanaged<BranchAnchor>) -> UInt64 {
    UInt64(UInt(bitPattern: anchor.toOpaque()))
  }
}

/// What user features hold: one of the branch's holders (see ``BranchAnchor``), released when the
/// last copy of those features is dropped.
@usableFromInline
final class BranchHandle: @unchecked Sendable {
  // Sendable: immutable; the anchor is shared as features share it.
  /// The branch's anchor: the branch keeps it, and this handle keeps the branch.
  private let anchor: Unmanaged<BranchAnchor>

  /// The first handle of `branch`, a new branch: it takes over the reference `branch` carries
  /// (`Unmanaged.passRetained`), which becomes the one its anchor owns.
  @usableFromInline
  init(adopting branch: Unmanaged<Branch>) {
    anchor = branch._withUnsafeGuaranteedRef { $0.anchor }
    anchor._withUnsafeGuaranteedRef { $0.adopt() }
  }

  deinit {
    anchor._withUnsafeGuaranteedRef { $0.release() }
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
