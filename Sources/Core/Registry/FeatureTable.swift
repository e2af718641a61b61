import Synchronization

/// An immutable open-addressing hash table from a feature's type to how a scope resolves it.
///
/// Built once per scope definition and only read afterwards, so lookups take no lock. Keys are the
/// addresses of feature metatypes, hashed with one multiply instead of `Hasher`. Branches copy its
/// ``Lookup`` (a few words, no reference) so that resolving touches no reference count.
@usableFromInline
package struct FeatureTable: Sendable {
  /// How a scope resolves one feature. Every field is trivial, so reading an entry touches no
  /// reference count; the binding is kept alive by its scope definition.
  // Sendable: `payload` and `binding` point at immutable objects kept alive by the scope definition.
  @usableFromInline
  package struct Entry: @unchecked Sendable {
    /// What a request finds: an implementation with its lifetime, or conflicting ones.
    @usableFromInline
    package enum Kind: Equatable, Sendable {
      case serves(Lifetime)
      case conflict
    }

    // Pointers first, then the small fields packed: 48 bytes an entry, which keeps the tables of a
    // large registry small (a table has twice as many buckets as entries).
    @usableFromInline package let key: UInt
    /// The registration's payload: a `Box<F>` or a `Loader<F>`.
    @usableFromInline package let payload: UnsafeRawPointer
    package let binding: Unmanaged<Binding>
    /// The word of its unit in the registering scope's ``UnitLayout`` (cacheables): 0 until the unit
    /// is given out, then the unit's offset in the registering branch's storage, plus 1.
    @usableFromInline package var unitWord: UnsafeMutablePointer<Atomic<UInt>>?
    @usableFromInline var storedDepth: Int32
    @usableFromInline var storedInstanceOffset: Int32
    @usableFromInline var storedFixedOffset: Int32
    @usableFromInline package let kind: Kind
    /// Whether the loader is `async`: only `try await features.instance()` can run it.
    @usableFromInline package let isAsync: Bool
    /// Whether each instance is recorded for a teardown when it is cached.
    @usableFromInline package let hasTeardown: Bool

    /// How many branches up, from a branch of this scope, the registering branch is.
    @inlinable package var depth: Int {
      get { Int(storedDepth) }
      set { storedDepth = Int32(newValue) }
    }

    /// Where the instance starts within its unit (cacheables without a context).
    @inlinable package var instanceOffset: Int {
      get { Int(storedInstanceOffset) }
      set { storedInstanceOffset = Int32(newValue) }
    }

    /// The unit's offset when it was given out as the table was built (a root's): every branch of
    /// the registering scope has it, so a read needs neither the word nor a bound check. -1 if not.
    @inlinable package var fixedOffset: Int {
      get { Int(storedFixedOffset) }
      set { storedFixedOffset = Int32(newValue) }
    }

    /// - Parameter key: The feature's key; a test hook may choose another.
    init(_ binding: Binding, key: UInt? = nil) {
      let registration = binding.registration
      self.key = key ?? FeatureTable.key(registration.feature)
      kind = binding.conflicts.isEmpty ? .serves(registration.lifetime) : .conflict
      storedDepth = 0
      unitWord = nil
      storedInstanceOffset = 0
      storedFixedOffset = -1
      payload = UnsafeRawPointer(Unmanaged.passUnretained(registration.payload).toOpaque())
      self.binding = Unmanaged.passUnretained(binding)
      isAsync = registration.isAsync
      hasTeardown = registration.teardown != nil
    }
  }

  /// An entry read in place: resolution loads only the fields it needs, rather than copying the
  /// whole entry.
  @usableFromInline
  package struct EntryReference {
    @usableFromInline let pointer: UnsafePointer<Entry>

    @inlinable @inline(__always)
    init(_ pointer: UnsafePointer<Entry>) {
      self.pointer = pointer
    }

    @inlinable package var kind: Entry.Kind { pointer.pointee.kind }
    @inlinable package var depth: Int { Int(pointer.pointee.storedDepth) }
    @inlinable package var unitWord: UnsafeMutablePointer<Atomic<UInt>> { pointer.pointee.unitWord.unsafelyUnwrapped }
    @inlinable package var instanceOffset: Int { Int(pointer.pointee.storedInstanceOffset) }
    @inlinable package var fixedOffset: Int { Int(pointer.pointee.storedFixedOffset) }
    @inlinable package var payload: UnsafeRawPointer { pointer.pointee.payload }
    @inlinable package var isAsync: Bool { pointer.pointee.isAsync }
    @inlinable package var hasTeardown: Bool { pointer.pointee.hasTeardown }
    package var binding: Unmanaged<Binding> { pointer.pointee.binding }
  }

  /// The table as resolution reads it: the keys, probed in place, beside their entries; two
  /// pointers and a shift, no reference.
  ///
  /// Valid while the table's storage lives, which its scope definition guarantees for every branch
  /// of the scope.
  // Sendable: the buckets are written once, before any lookup, and never again.
  @usableFromInline
  package struct Lookup: @unchecked Sendable {
    /// `1 << capacityBits` keys; an empty bucket's is 0.
    @usableFromInline let keys: UnsafePointer<UInt>
    /// The entry of each bucket whose key is not 0; the others are never read.
    @usableFromInline let entries: UnsafePointer<Entry>
    /// `UInt.bitWidth - capacityBits`: the hash keeps the product's top bits, the well-mixed ones.
    @usableFromInline let shift: UInt

    init(keys: UnsafePointer<UInt>, entries: UnsafePointer<Entry>, shift: UInt) {
      self.keys = keys
      self.entries = entries
      self.shift = shift
    }

    /// The bucket where probing for `key` starts, in a table of `UInt.bitWidth - shift` bits.
    @inlinable @inline(__always)
    static func homeBucket(of key: UInt, shift: UInt) -> Int {
      Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The entry for a feature type, if this scope or an ancestor registers it.
    @inlinable @inline(__always)
    package func entry(for key: UInt) -> EntryReference? {
      let mask = Int(bitPattern: UInt.max &>> shift)
      var index = Self.homeBucket(of: key, shift: shift)
      while true {
        let found = keys[index]
        if found == key { return EntryReference(entries + index) }
        if found == 0 { return nil }
        index = (index &+ 1) & mask
      }
    }
  }

  /// Owns the buckets of one table.
  private final class Buckets: Sendable {
    let lookup: Lookup

    init(_ entries: [Entry]) {
      var capacityBits: UInt = 2
      while (1 << capacityBits) < entries.count * 2 { capacityBits += 1 }
      let count = 1 << capacityBits
      let shift = UInt(UInt.bitWidth) - capacityBits
      let keys = UnsafeMutablePointer<UInt>.allocate(capacity: count)
      keys.initialize(repeating: 0, count: count)
      // Entries are trivial: the empty buckets' stay uninitialised, and none needs deinitialising.
      let buckets = UnsafeMutablePointer<Entry>.allocate(capacity: count)
      for entry in entries {
        var index = Lookup.homeBucket(of: entry.key, shift: shift)
        while keys[index] != 0 { index = (index + 1) & (count - 1) }
        keys[index] = entry.key
        (buckets + index).initialize(to: entry)
      }
      lookup = Lookup(keys: keys, entries: buckets, shift: shift)
    }

    deinit {
      UnsafeMutablePointer(mutating: lookup.keys).deallocate()
      UnsafeMutablePointer(mutating: lookup.entries).deallocate()
    }
  }

  package let entries: [Entry]
  /// Where the branches of this scope keep what they cache; entries of an ancestor point into its.
  package let units: UnitLayout
  private let buckets: Buckets

  /// - Parameters:
  ///   - entries: This scope's own entries (depth 0), and its ancestors' it does not replace.
  ///   - givingOutAll: Whether every unit is given out now (a root's, whose one branch is made
  ///     before anything loads) rather than on first use.
  init(_ entries: [Entry], givingOutAll: Bool = false) {
    var entries = entries
    var shapes: [UnitLayout.Shape] = []
    var owned: [Int] = []
    for index in entries.indices where entries[index].depth == 0 {
      switch entries[index].kind {
      case .serves(.cacheable):
        let shape = UnitLayout.Shape(cacheable: entries[index].binding.takeUnretainedValue().registration.feature)
        entries[index].instanceOffset = shape.instanceOffset
        shapes.append(shape)
        owned.append(index)
      case .serves(.cacheablePerContext):
        shapes.append(.multiton)
        owned.append(index)
      case .serves(.static), .serves(.disposable), .conflict:
        break
      }
    }
    units = UnitLayout(shapes, givingOutAll: givingOutAll)
    for (unit, index) in owned.enumerated() {
      entries[index].unitWord = units.words + unit
      if givingOutAll { entries[index].fixedOffset = Int(units.words[unit].load(ordering: .relaxed)) - 1 }
    }
    self.entries = entries
    buckets = Buckets(entries)
  }

  /// The buckets, for a branch to keep while it keeps this table's scope definition.
  package var lookup: Lookup { buckets.lookup }

  /// The key of a feature type: the address of its metatype.
  @inlinable @inline(__always)
  package static func key(_ type: Any.Type) -> UInt {
    UInt(bitPattern: ObjectIdentifier(type))
  }

  /// The entry for a feature type, if this scope or an ancestor registers it.
  package func entry(for key: UInt) -> Entry? {
    buckets.lookup.entry(for: key)?.pointer.pointee
  }
}
