import Synchronization

/// Where a scope's branches keep what they cache: a unit of storage per cacheable the scope
/// registers (its state word, then its instance in place) or per multiton (the word of its
/// ``Multiton``), given out when the first branch of the scope loads it.
///
/// A branch has room for the units given out before it was made, at their offsets, in its own
/// storage; a unit given out later lives in an overflow block of each branch made before (see
/// ``Branch/unit(word:giveOut:)``). So a branch costs what the cacheables its scope actually uses
/// need, however many more it registers. A root's units are all given out at once: its one branch
/// is made before anything is loaded.
package final class UnitLayout: @unchecked Sendable {
  // Sendable: `words`, `givenCount` and `byteCount` are atomics; a unit's record in `given` is
  // written under `lock` (or, for a layout giving out all its units, in `init`, before anyone else
  // sees it) before `givenCount` publishes it (releasing), and never again.

  /// What a unit holds.
  package struct Shape {
    /// The instance's layout; `nil` for a multiton's word.
    package let instance: InstanceLayout?
    /// Where the instance starts within the unit, after the state word.
    package let instanceOffset: Int
    package let size: Int
    package let alignment: Int

    /// The unit of a cacheable of `feature`.
    init(cacheable feature: any Feature.Type) {
      let instance = InstanceLayout(feature)
      let word = MemoryLayout<UInt>.stride
      let instanceAlignment = instance.alignment
      self.instance = instance
      alignment = max(word, instanceAlignment)
      instanceOffset = (word + instanceAlignment - 1) / instanceAlignment * instanceAlignment
      size = instanceOffset + instance.size
    }

    /// The unit of a multiton: its word.
    static var multiton: Shape { Shape() }

    /// A multiton's: one word.
    private init() {
      instance = nil
      instanceOffset = 0
      size = MemoryLayout<UInt>.stride
      alignment = MemoryLayout<UInt>.alignment
    }
  }

  /// A unit given out: where it is, and what it holds.
  package struct Unit {
    package let offset: Int
    /// The end of the unit: the bytes a branch needs for it and every unit given out before.
    package let end: Int
    package let instanceOffset: Int
    /// The instance's layout; `nil` for a multiton's word.
    package let instance: InstanceLayout?
  }

  /// Each unit's word, by the index its entry holds: 0 until it is given out, then its offset + 1.
  let words: SharedWords
  /// The units in the order they were given out; the first `givenCount` are set.
  private let given: FixedSlots<Unit>
  private let givenCount = Atomic<Int>(0)
  /// How many units there are, given out or not.
  private let unitCount: Int
  /// The shapes of the units not given out yet, by index; empty once all were, as a root's are.
  private let shapes: [Shape]
  /// Serialises giving out units; holds how many were, which `givenCount` publishes to readers.
  private let lock: Lock<Int>
  /// The largest alignment a unit may need: what branch storage is aligned to.
  package let alignment: Int

  init(_ shapes: [Shape], givingOutAll: Bool) {
    unitCount = shapes.count
    words = SharedWords(count: shapes.count)
    given = FixedSlots(count: shapes.count)
    var alignment = MemoryLayout<UInt>.alignment
    for shape in shapes { alignment = max(alignment, shape.alignment) }
    self.alignment = alignment
    guard givingOutAll else {
      self.shapes = shapes
      lock = Lock.make(0)
      return
    }
    // Nobody else sees the layout yet: every unit is given out in order, without the lock.
    self.shapes = []
    lock = Lock.make(shapes.count)
    var end = Self.headerByteCount
    for (index, shape) in shapes.enumerated() {
      let unit = Self.unit(shape, after: end)
      end = unit.end
      given.initialize(index, to: unit)
      words[index].store(UInt(unit.offset) + 1, ordering: .relaxed)
    }
    givenCount.store(shapes.count, ordering: .releasing)
  }

  /// How many units are given out; the first that many in `unit(at:)`.
  package var count: Int { givenCount.load(ordering: .acquiring) }

  /// The `index`th unit given out; `index` is below a ``count`` read before.
  package func unit(at index: Int) -> Unit { given[index] }

  /// What a branch keeps before its units: a word with the bytes of its units, for the inlined
  /// read to check an offset against without touching the branch object.
  package static var headerByteCount: Int { MemoryLayout<UInt>.stride }

  /// The bytes of the header and the first `count` units given out: unit offsets count from the
  /// start of the header.
  package func byteCount(ofFirst count: Int) -> Int { count == 0 ? Self.headerByteCount : given[count - 1].end }

  /// Gives out the unit of `index` if it is not yet, and returns its word (its offset + 1).
  package func giveOut(_ index: Int) -> UInt {
    let word = words[index].load(ordering: .acquiring)
    if word != 0 { return word }
    return lock.withLock { count in
      let word = words[index].load(ordering: .acquiring)
      if word != 0 { return word }
      let unit = Self.unit(shapes[index], after: byteCount(ofFirst: count))
      given.initialize(count, to: unit)
      count += 1
      givenCount.store(count, ordering: .releasing)
      let published = UInt(unit.offset) + 1
      words[index].store(published, ordering: .releasing)
      return published
    }
  }

  /// The unit of `shape` placed at the first offset after `end` that it is aligned to.
  private static func unit(_ shape: Shape, after end: Int) -> Unit {
    let start = (end + shape.alignment - 1) / shape.alignment * shape.alignment
    return Unit(offset: start, end: start + shape.size, instanceOffset: shape.instanceOffset, instance: shape.instance)
  }
}
