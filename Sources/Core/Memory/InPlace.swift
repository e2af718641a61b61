import Synchronization

/// A value read in place, where something else keeps it: an entry of a table, a frame on a
/// thread's stack. Copying the reference copies an address, not the value, so reading one field
/// costs one load.
///
/// With ``UncountedReference`` and ``BranchStorage``, one of the three places that hold Arbor's
/// unsafe code. Valid while the value's keeper keeps it: each holder says who that is.
@usableFromInline
struct InPlace<Value> {
  @usableFromInline let pointer: UnsafePointer<Value>

  @inlinable @inline(__always)
  init(_ pointer: UnsafePointer<Value>) {
    self.pointer = pointer
  }

  /// The value.
  @inlinable @inline(__always)
  var pointee: Value { pointer.pointee }

  /// Runs `body` with `value` in place for the call: how a load keeps its frame and context on the
  /// stack, with nothing allocated.
  @inlinable @inline(__always)
  static func with<R>(_ value: Value, _ body: (InPlace<Value>) throws -> R) rethrows -> R {
    try withUnsafePointer(to: value) { try body(InPlace($0)) }
  }

  /// The value without its type, for a keeper of values of many types (a thread's frames keep
  /// each load's context).
  @inlinable @inline(__always)
  var erased: ErasedInPlace { ErasedInPlace(UnsafeRawPointer(pointer)) }
}

/// A value in place whose type its holder knows only at the point of use: a load's context on a
/// thread's path, an instance a branch destroys.
@usableFromInline
struct ErasedInPlace {
  @usableFromInline let address: UnsafeRawPointer

  @inlinable @inline(__always)
  init(_ address: UnsafeRawPointer) {
    self.address = address
  }

  /// A copy of the value, which the caller knows is a `Value`.
  @inlinable @inline(__always)
  func load<Value>(as type: Value.Type) -> Value {
    address.assumingMemoryBound(to: Value.self).pointee
  }

  /// Destroys the value, which the caller knows is a `Value` and owns: nothing reads it after.
  func deinitialize<Value>(as type: Value.Type) {
    UnsafeMutableRawPointer(mutating: address).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
  }
}

/// An atomic word in memory that something else owns and frees: a unit's word in a branch's
/// storage, a word of an anchor's tail, a bucket of a table, a word of a ``SharedWords``.
@usableFromInline
package struct SharedWord {
  @usableFromInline let pointer: UnsafeMutablePointer<Atomic<UInt>>

  @inlinable @inline(__always)
  package init(_ pointer: UnsafeMutablePointer<Atomic<UInt>>) {
    self.pointer = pointer
  }

  /// The word at `address`, made already.
  @inlinable @inline(__always)
  init(at address: UnsafeMutableRawPointer) {
    pointer = address.assumingMemoryBound(to: Atomic<UInt>.self)
  }

  /// Makes the word at `address`, holding `value`.
  @discardableResult
  static func initialize(at address: UnsafeMutableRawPointer, to value: UInt = 0) -> SharedWord {
    address.initializeMemory(as: Atomic<UInt>.self, to: Atomic(value))
    return SharedWord(at: address)
  }

  /// How an access orders the memory around it, as `Atomic`'s orderings do. An access that an
  /// ordering does not apply to (a releasing load) is sequentially consistent.
  @usableFromInline
  enum Ordering {
    case relaxed, acquiring, releasing, acquiringAndReleasing, sequentiallyConsistent
  }

  @inlinable @inline(__always)
  func load(ordering: Ordering) -> UInt {
    switch ordering {
    case .relaxed: pointer.pointee.load(ordering: .relaxed)
    case .acquiring: pointer.pointee.load(ordering: .acquiring)
    default: pointer.pointee.load(ordering: .sequentiallyConsistent)
    }
  }

  @inlinable @inline(__always)
  func store(_ value: UInt, ordering: Ordering) {
    switch ordering {
    case .relaxed: pointer.pointee.store(value, ordering: .relaxed)
    case .releasing: pointer.pointee.store(value, ordering: .releasing)
    default: pointer.pointee.store(value, ordering: .sequentiallyConsistent)
    }
  }

  @inlinable @inline(__always)
  func exchange(_ value: UInt, ordering: Ordering) -> UInt {
    switch ordering {
    case .relaxed: pointer.pointee.exchange(value, ordering: .relaxed)
    case .acquiring: pointer.pointee.exchange(value, ordering: .acquiring)
    case .releasing: pointer.pointee.exchange(value, ordering: .releasing)
    case .acquiringAndReleasing: pointer.pointee.exchange(value, ordering: .acquiringAndReleasing)
    case .sequentiallyConsistent: pointer.pointee.exchange(value, ordering: .sequentiallyConsistent)
    }
  }

  @inlinable @inline(__always)
  func compareExchange(expected: UInt, desired: UInt, ordering: Ordering) -> (exchanged: Bool, original: UInt) {
    let word = pointer
    return switch ordering {
    case .relaxed: word.pointee.compareExchange(expected: expected, desired: desired, ordering: .relaxed)
    case .acquiring: word.pointee.compareExchange(expected: expected, desired: desired, ordering: .acquiring)
    case .releasing: word.pointee.compareExchange(expected: expected, desired: desired, ordering: .releasing)
    case .acquiringAndReleasing:
      word.pointee.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing)
    case .sequentiallyConsistent:
      word.pointee.compareExchange(expected: expected, desired: desired, ordering: .sequentiallyConsistent)
    }
  }

  /// Sets the bits of `mask`, acquiring; returns the word as it was. (The lock bit of a branch's
  /// children.)
  func setBitsAcquiring(_ mask: UInt) -> UInt {
    pointer.pointee.bitwiseOr(mask, ordering: .acquiring).oldValue
  }

  /// Adds 1, acquiring and releasing; returns the word as it was. (A holder count.)
  func incrementCount() -> UInt {
    pointer.pointee.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
  }

  /// Subtracts 1, acquiring and releasing; returns the word as it was. (A holder count.)
  func decrementCount() -> UInt {
    pointer.pointee.wrappingSubtract(1, ordering: .acquiringAndReleasing).oldValue
  }
}

/// A fixed number of atomic words, each 0 at first, freed with it: a multiton table's buckets, a
/// layout's unit words.
@usableFromInline
struct SharedWords: ~Copyable {
  @usableFromInline let base: UnsafeMutablePointer<Atomic<UInt>>
  let count: Int

  /// `count` words, each 0.
  init(count: Int) {
    let base = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: max(1, count))
    for index in 0..<count { (base + index).initialize(to: Atomic(0)) }
    self.base = base
    self.count = count
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  /// The word at `index`, which the caller knows is below ``count``: valid while these words live.
  @inlinable @inline(__always)
  subscript(index: Int) -> SharedWord { SharedWord(base + index) }

  /// The index of `word`, one of these.
  func index(of word: SharedWord) -> Int { base.distance(to: word.pointer) }
}

/// A fixed number of slots of elements that need no destruction, each set once before readers
/// that take no lock may read it, freed with it: the buckets of a ``FeatureTable``, the units a
/// ``UnitLayout`` gave out.
struct FixedSlots<Element>: ~Copyable {
  private let base: UnsafeMutablePointer<Element>

  /// `count` slots, none set.
  init(count: Int) {
    assert(_isPOD(Element.self), "fixed slots would not destroy their elements")
    base = .allocate(capacity: max(1, count))
  }

  /// `count` slots, each set to `value`.
  init(count: Int, repeating value: Element) {
    self.init(count: count)
    base.initialize(repeating: value, count: count)
  }

  deinit {
    base.deallocate()
  }

  /// The element in the set slot `index`.
  subscript(index: Int) -> Element { base[index] }

  /// Sets slot `index`.
  func initialize(_ index: Int, to element: Element) {
    (base + index).initialize(to: element)
  }

  /// Changes the element in the set slot `index`: before any reader may see it.
  func update(_ index: Int, _ body: (inout Element) -> Void) {
    body(&base[index])
  }

  /// The slots as readers see them: valid while these slots live.
  var view: SlotsView<Element> { SlotsView(base: base) }
}

/// The slots of a ``FixedSlots`` as readers see them, without keeping them: a handle the owner of
/// the slots keeps beside them, so that a lookup reads a pointer rather than an object.
@usableFromInline
struct SlotsView<Element> {
  @usableFromInline let base: UnsafeMutablePointer<Element>

  /// The element in the set slot `index`.
  @inlinable @inline(__always)
  subscript(index: Int) -> Element { base[index] }

  /// The set slot `index`, read in place.
  @inlinable @inline(__always)
  func inPlace(_ index: Int) -> InPlace<Element> { InPlace(base + index) }
}
