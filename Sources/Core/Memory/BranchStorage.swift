import Synchronization

/// The raw memory of one branch, and every computation of an address in it: the one place that
/// knows where a branch keeps its cached instances and its context.
///
/// With ``UncountedReference`` and ``InPlace``, one of the three places that hold Arbor's unsafe
/// code.
///
/// A branch's storage is the tail of its anchor (``BranchAnchor/storage``):
///
/// | bytes | hold |
/// |---|---|
/// | one word | the byte count of the header and the units that follow it |
/// | the units the scope gave out before the branch was made (see ``UnitLayout``) | each a state word (``UnitState``), then its instance, or a multiton's word |
/// | from the context offset the branch keeps | its context, typed, when it has one |
///
/// A unit given out after the branch was made is in an ``OverflowBlock`` of the branch's
/// ``OverflowChain``, at the same offset as in a later branch's storage: a block is storage for
/// the units it holds, and reads them through the same handle.
///
/// A handle is one pointer: copying it costs nothing, and the inlined cached read uses it as it
/// used the pointer. It owns no memory; the anchor (or the block) does.
@usableFromInline
struct BranchStorage {
  /// Where the storage starts: its header word.
  @usableFromInline let base: UnsafeMutableRawPointer

  @inlinable
  init(base: UnsafeMutableRawPointer) {
    self.base = base
  }

  /// Makes the storage of a new branch at `base`: its header, and the words of its first
  /// `unitCount` units of `layout`, each empty.
  fileprivate static func initialize(at base: UnsafeMutableRawPointer, layout: UnitLayout, unitCount: Int)
    -> BranchStorage
  {
    let storage = BranchStorage(base: base)
    // Swift aligns no type to more than 16 bytes, which the anchor's tail is aligned to.
    assert(Int(bitPattern: base) % layout.alignment == 0)
    storage.initializeUnits(of: layout, from: 0, count: unitCount)
    base.storeBytes(of: UInt(layout.byteCount(ofFirst: unitCount)), as: UInt.self)
    return storage
  }

  /// Storage for the units from offset `start` to offset `end` alone: an overflow block's. Its
  /// memory starts at `start` rounded down to 16, so that every unit is as aligned as in a branch's
  /// storage; it has no header. Its owner frees it with ``deallocateUnits(from:)``.
  static func allocateUnits(from start: Int, to end: Int) -> BranchStorage {
    let first = start & ~15
    return BranchStorage(base: .allocate(byteCount: end - first, alignment: 16) - first)
  }

  /// Frees storage made by ``allocateUnits(from:to:)``, whose units start at `start`.
  func deallocateUnits(from start: Int) {
    (base + (start & ~15)).deallocate()
  }

  /// Empties the words of `count` units of `layout` from `first`.
  func initializeUnits(of layout: UnitLayout, from first: Int, count: Int) {
    for index in first..<(first + count) {
      // A new unit's word: nothing loaded.
      SharedWord.initialize(at: base + layout.unit(at: index).offset)
    }
  }

  /// The bytes of the header and the units: a unit at a larger offset is in an overflow block.
  @inlinable
  var unitBytes: Int { Int(base.load(as: UInt.self)) }

  /// Whether the storage is aligned as its units need: for the invariant check.
  var isAligned: Bool { Int(bitPattern: base) % 16 == 0 }

  // MARK: Units

  /// One unit: its state word, then its instance (or a multiton's word alone).
  @usableFromInline
  struct Unit {
    @usableFromInline let start: UnsafeMutableRawPointer

    @inlinable
    init(start: UnsafeMutableRawPointer) {
      self.start = start
    }

    /// The unit's word, where loads claim it and publish its instance.
    @inlinable
    var state: UnitState { UnitState(SharedWord(at: start)) }

    /// The instance stored at `instanceOffset`, once the word says it is (an acquiring load).
    @inlinable @inline(__always)
    func instance<F>(_ feature: F.Type, at instanceOffset: Int) -> F? {
      guard state.isLoaded else { return nil }
      return storedInstance(feature, at: instanceOffset)
    }

    /// The instance stored at `instanceOffset`: call once the word said it is.
    @inlinable @inline(__always)
    func storedInstance<F>(_ feature: F.Type, at instanceOffset: Int) -> F {
      (start + instanceOffset).assumingMemoryBound(to: F.self).pointee
    }

    /// Stores `instance` at `instanceOffset`: call as the load that claimed the unit, before the
    /// word publishes it. The bytes are never written again.
    @inlinable
    func store<F>(_ instance: F, at instanceOffset: Int) {
      (start + instanceOffset).initializeMemory(as: F.self, repeating: instance, count: 1)
    }

    /// Frees what the unit holds, shaped as `unit`: its instance, or its multiton.
    func destroy(as unit: UnitLayout.Unit) {
      if let instance = unit.instance {
        if state.holdsInstance { instance.destroy(ErasedInPlace(start + unit.instanceOffset)) }
      } else {
        state.releaseMultiton()
      }
      // The word itself is left as it is: an `Atomic<UInt>` has nothing to deinitialise, and a
      // generic deinitialisation would cost a runtime call per unit.
    }

    /// What is wrong with where the unit, shaped as `unit`, is: its word's and its instance's
    /// alignment.
    func alignmentViolations(as unit: UnitLayout.Unit, index: Int) -> [String] {
      var violations: [String] = []
      if Int(bitPattern: start) % MemoryLayout<UInt>.alignment != 0 {
        violations.append("unit \(index)'s word is misaligned")
      }
      if let instance = unit.instance, Int(bitPattern: start + unit.instanceOffset) % instance.alignment != 0 {
        violations.append("unit \(index)'s instance is not aligned to \(instance.alignment)")
      }
      return violations
    }
  }

  /// The unit at `offset`, which the caller knows is in this storage.
  @inlinable
  func unit(at offset: Int) -> Unit { Unit(start: base + offset) }

  /// The unit at `offset`, if this storage has room for it.
  func unitIfStored(at offset: Int) -> Unit? { offset < unitBytes ? unit(at: offset) : nil }

  /// The unit of `entry`, at its fixed offset or where its ``FeatureTable/Entry/unitWord`` says, if
  /// this storage has room for it: `nil` for a unit not given out yet, or given out after the
  /// branch was made (then in an overflow block).
  @inlinable @inline(__always)
  func unit(_ entry: FeatureTable.EntryReference) -> Unit? {
    let fixed = entry.fixedOffset
    if fixed >= 0 { return unit(at: fixed) }
    // 0 (not given out) wraps around to the largest offset, which no storage holds.
    let offset = entry.unitWord.load(ordering: .relaxed) &- 1
    return offset < base.load(as: UInt.self) ? unit(at: Int(bitPattern: offset)) : nil
  }

  /// Frees what `count` units of `layout` from `first` hold.
  func destroyUnits(of layout: UnitLayout, from first: Int, count: Int) {
    for index in first..<(first + count) {
      let unit = layout.unit(at: index)
      self.unit(at: unit.offset).destroy(as: unit)
    }
  }

  // MARK: Context

  /// The context stored at `offset`.
  @inlinable
  func context<Context>(_ type: Context.Type, at offset: Int32) -> Context {
    (base + Int(offset)).assumingMemoryBound(to: Context.self).pointee
  }

  /// Stores the branch's context at `offset`, once, as the branch is made.
  @inlinable
  func initializeContext<Context>(_ context: Context, at offset: Int32) {
    (base + Int(offset)).initializeMemory(as: Context.self, repeating: context, count: 1)
  }

  /// Frees the context stored at `offset`, as its branch goes.
  func deinitializeContext<Context>(_ type: Context.Type, at offset: Int32) {
    if !_isPOD(Context.self) { (base + Int(offset)).assumingMemoryBound(to: Context.self).deinitialize(count: 1) }
  }

  /// Whether the context at `offset` is aligned for `type`: for the invariant check.
  func isContextAligned<Context>(_ type: Context.Type, at offset: Int32) -> Bool {
    Int(bitPattern: base + Int(offset)) % MemoryLayout<Context>.alignment == 0
  }
}

extension BranchAnchor {
  /// A new anchor with room for `tailWords` words, its first ``headerWords`` made and 0.
  static func make(tailWords: Int) -> BranchAnchor {
    // `create` makes an instance of the class it is called on.
    let anchor = unsafeDowncast(create(minimumCapacity: tailWords) { _ in Header() }, to: BranchAnchor.self)
    for index in 0..<headerWords { anchor.initializeTailWord(index) }
    return anchor
  }

  /// The branch without a reference count: valid while it has holders. Read in place, without
  /// the exclusivity check of the buffer's `header` property: it is written once, by ``attach(_:)``,
  /// before the branch is published.
  @inlinable var reference: UncountedReference<Branch>? {
    withUnsafeMutablePointerToHeader { $0.pointee.reference }
  }

  /// Makes `branch`, new and not yet published, this anchor's branch.
  func attach(_ branch: Branch) {
    withUnsafeMutablePointerToHeader { $0.pointee.reference = UncountedReference(branch) }
  }

  /// Word `index` of the tail, before the storage (see ``BranchAnchor/headerWords``).
  func tailWord(_ index: Int) -> SharedWord {
    withUnsafeMutablePointerToElements { SharedWord(at: UnsafeMutableRawPointer($0 + index)) }
  }

  /// Makes word `index` of the tail of a new anchor, holding 0.
  private func initializeTailWord(_ index: Int) {
    withUnsafeMutablePointerToElements { _ = SharedWord.initialize(at: UnsafeMutableRawPointer($0 + index)) }
  }

  /// The storage of a new branch in the rest of the tail, made as
  /// ``BranchStorage/initialize(at:layout:unitCount:)`` makes it.
  func initializeStorage(layout: UnitLayout, unitCount: Int) -> BranchStorage {
    withUnsafeMutablePointerToElements { words in
      BranchStorage.initialize(
        at: UnsafeMutableRawPointer(words + Self.headerWords), layout: layout, unitCount: unitCount)
    }
  }
}
