import Synchronization

/// The values of the properties a branch has read, as one immutable table: what a read looks up
/// without a lock.
///
/// A branch publishes a snapshot with an atomic store and never changes its entries; when a set
/// changes one of the values it holds, the branch publishes a new one (see ``BranchProperties``).
/// `validAt` is the one mutable field: the tree's property generation at which the entries were
/// current. A set anywhere in the tree moves the generation on, and a read that sees a different
/// generation goes the slow way, which either moves `validAt` forward (the set changed nothing this
/// branch reads) or publishes a new snapshot.
///
/// Keys are the addresses of property metatypes, probed in place like a ``FeatureTable``'s.
@usableFromInline
final class PropertySnapshot: @unchecked Sendable {
  // Sendable: `validAt` is atomic; everything else is immutable.
  /// The tree's property generation at which these entries were current; 0: never.
  @usableFromInline let validAt: Atomic<UInt>
  /// `1 << capacityBits` keys; an empty bucket's is 0.
  @usableFromInline let keys: [UInt]
  /// The box of each bucket whose key is not 0: a `PropertyBox<Value>` of the key's property,
  /// uncounted (`entries` keeps it).
  @usableFromInline let boxes: [UncountedReference<AnyPropertyBox>?]
  /// `UInt.bitWidth - capacityBits`: the hash keeps the product's top bits.
  @usableFromInline let shift: UInt
  /// Every entry, in the order the branch first read them; keeps the boxes alive.
  let entries: [(key: UInt, box: AnyPropertyBox)]

  init(_ entries: [(key: UInt, box: AnyPropertyBox)], validAt generation: UInt) {
    var capacityBits: UInt = 2
    while (1 << capacityBits) < entries.count * 2 { capacityBits += 1 }
    let count = 1 << capacityBits
    shift = UInt(UInt.bitWidth) - capacityBits
    var keys = [UInt](repeating: 0, count: count)
    var boxes = [UncountedReference<AnyPropertyBox>?](repeating: nil, count: count)
    for entry in entries {
      var index = Int((entry.key &* 0x9E37_79B9_7F4A_7C15) >> shift)
      while keys[index] != 0 { index = (index + 1) & (count - 1) }
      keys[index] = entry.key
      boxes[index] = UncountedReference(entry.box)
    }
    self.keys = keys
    self.boxes = boxes
    self.entries = entries
    validAt = Atomic(generation)
  }

  /// The box of the property keyed `key`, if this branch has read it.
  @inlinable @inline(__always)
  func box(for key: UInt) -> UncountedReference<AnyPropertyBox>? {
    let mask = Int(bitPattern: UInt.max &>> shift)
    var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    while true {
      let found = keys[index]
      if found == key { return boxes[index] }
      if found == 0 { return nil }
      index = (index &+ 1) & mask
    }
  }
}
