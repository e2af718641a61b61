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

    // Pointers first, then the small fields packed, which keeps the tables of a large registry
    // small (a table has twice as many buckets as entries).
    @usableFromInline package let key: UInt
    /// The registration's payload: a `Box<F>` or a `Loader<F>`.
    @usableFromInline package let payload: UncountedReference<AnyObject>
    package let binding: UncountedReference<Binding>
    /// The word of its unit in the registering scope's ``UnitLayout`` (cacheables): 0 until the unit
    /// is given out, then the unit's offset in the registering branch's storage, plus 1.
    @usableFromInline var unitWord: SharedWord?
    @usableFromInline var storedDepth: Int32
    @usableFromInline var storedInstanceOffset: Int32
    @usableFromInline var storedFixedOffset: Int32
    @usableFromInline package let kind: Kind
    /// Whether the loader is `async`: only `try await features.instance()` can run it.
    @usableFromInline package let isAsync: Bool
    /// Whether the loader is synchronous and runs on the main actor: a synchronous request runs
    /// it on the main actor only, an awaited one hops there (an async main-actor loader hops by
    /// itself, and is only `isAsync`).
    @usableFromInline package let loadsOnMainActor: Bool
    /// Whether each instance is recorded for a teardown when it is cached.
    @usableFromInline package let hasTeardown: Bool
    /// Where a branch keeps the instances.
    @usableFromInline package let keeping: Keeping

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
      payload = UncountedReference(registration.payload)
      self.binding = UncountedReference(binding)
      isAsync = registration.isAsync
      loadsOnMainActor = registration.runsOnMainActor && !registration.isAsync
      hasTeardown = registration.teardown != nil
      keeping =
        binding.conflicts.isEmpty
        ? Keeping(registration.lifetime, expires: registration.timeToLive != nil) : .nowhere
    }
  }

  /// An entry read in place: resolution loads only the fields it needs, rather than copying the
  /// whole entry.
  @usableFromInline
  package struct EntryReference {
    @usableFromInline let pointer: InPlace<Entry>

    @inlinable @inline(__always)
    init(_ pointer: InPlace<Entry>) {
      self.pointer = pointer
    }

    @inlinable package var kind: Entry.Kind { pointer.pointee.kind }
    @inlinable package var depth: Int { Int(pointer.pointee.storedDepth) }
    /// The word of the entry's unit: only an entry of a cacheable has one.
    @inlinable var unitWord: SharedWord { pointer.pointee.unitWord! }
    @inlinable package var instanceOffset: Int { Int(pointer.pointee.storedInstanceOffset) }
    @inlinable package var fixedOffset: Int { Int(pointer.pointee.storedFixedOffset) }
    @inlinable package var payload: UncountedReference<AnyObject> { pointer.pointee.payload }
    @inlinable package var isAsync: Bool { pointer.pointee.isAsync }
    @inlinable package var loadsOnMainActor: Bool { pointer.pointee.loadsOnMainActor }
    @inlinable package var hasTeardown: Bool { pointer.pointee.hasTeardown }
    @inlinable package var keeping: Keeping { pointer.pointee.keeping }
    package var binding: UncountedReference<Binding> { pointer.pointee.binding }
  }

  /// The table as resolution reads it: the keys, probed in place, beside their entries; two
  /// pointers and a one-byte shift, no reference.
  ///
  /// Valid while the table's storage lives, which its scope definition guarantees for every branch
  /// of the scope.
  // Sendable: the buckets are written once, before any lookup, and never again.
  @usableFromInline
  package struct Lookup: @unchecked Sendable {
    /// `1 << capacityBits` keys; an empty bucket's is 0.
    @usableFromInline let keys: SlotsView<UInt>
    /// The entry of each bucket whose key is not 0; the others are never read.
    @usableFromInline let entries: SlotsView<Entry>
    /// ``shift``, in one byte: a branch keeps its scope's lookup, and lays its own small fields out
    /// in the rest of the lookup's last word (see ``Branch``). Reading it costs what reading a
    /// word did: resolution used only its low byte.
    @usableFromInline let shiftByte: UInt8

    /// `UInt.bitWidth - capacityBits`: the hash keeps the product's top bits, the well-mixed ones.
    @inlinable @inline(__always)
    var shift: UInt { UInt(shiftByte) }

    init(keys: SlotsView<UInt>, entries: SlotsView<Entry>, shift: UInt) {
      self.keys = keys
      self.entries = entries
      shiftByte = UInt8(shift)
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
        if found == key { return EntryReference(entries.inPlace(index)) }
        if found == 0 { return nil }
        index = (index &+ 1) & mask
      }
    }
  }

  /// Owns the buckets of one table.
  private final class Buckets: @unchecked Sendable {
    // Sendable: the buckets are written while the table is built, before anyone else sees it.
    private let keys: FixedSlots<UInt>
    /// Entries are trivial: the empty buckets' stay unset.
    private let entries: FixedSlots<Entry>
    /// Both, as lookups read them.
    let lookup: Lookup

    /// `1 << capacityBits` empty buckets.
    init(capacityBits: UInt) {
      let count = 1 << capacityBits
      keys = FixedSlots(count: count, repeating: 0)
      entries = FixedSlots(count: count)
      lookup = Lookup(keys: keys.view, entries: entries.view, shift: UInt(UInt.bitWidth) - capacityBits)
    }

    var capacity: Int { 1 << (UInt(UInt.bitWidth) - lookup.shift) }

    /// The bucket of `key`: the one holding it, or the empty one where it goes.
    func bucket(of key: UInt) -> Int {
      let mask = capacity - 1
      var index = Lookup.homeBucket(of: key, shift: lookup.shift)
      while lookup.keys[index] != 0, lookup.keys[index] != key { index = (index + 1) & mask }
      return index
    }

    /// Puts `entry` into the empty bucket `index`, found by ``bucket(of:)``.
    func insert(_ entry: Entry, at index: Int) {
      keys.initialize(index, to: entry.key)
      entries.initialize(index, to: entry)
    }

    /// Changes the entry in the filled bucket `index`, before the table is published.
    func updateEntry(at index: Int, _ body: (inout Entry) -> Void) { entries.update(index, body) }
  }

  /// How many features the table resolves: its scope's and its ancestors' that the scope does not
  /// replace.
  package let count: Int
  /// Where the branches of this scope keep what they cache; entries of an ancestor point into its.
  package let units: UnitLayout
  private let buckets: Buckets

  /// The table of a scope registering `own` below `parent`: `own` (depth 0), then the parent's
  /// entries one branch further up, except those `own` replace. A table without a parent (a
  /// root's) gives out every unit now: its one branch is made before anything loads.
  ///
  /// Built in place in its buckets, which are sized for both parts at once: linear in the entries,
  /// with no intermediate list of them.
  ///
  /// - Parameters:
  ///   - own: This scope's bindings, in registration order.
  ///   - keys: The key of each of `own`; a test hook may choose them. By default each feature's.
  ///   - parent: The table of the parent scope, if any.
  /// - Returns: `nil` when two of `own` register the same feature: the caller resolves the conflict
  ///   first (see ``ScopeDefinition``).
  init?(_ own: [Binding], keys: [UInt]? = nil, over parent: FeatureTable?) {
    let most = own.count + (parent?.count ?? 0)
    var capacityBits: UInt = 2
    while (1 << capacityBits) < most * 2 { capacityBits += 1 }
    let buckets = Buckets(capacityBits: capacityBits)
    // This scope's entries first, in order, each with its unit's shape: a feature found twice is a
    // conflict to resolve before the table can be built.
    var shapes: [UnitLayout.Shape] = []
    shapes.reserveCapacity(own.count)
    var owned: [Int] = []
    owned.reserveCapacity(own.count)
    for (index, binding) in own.enumerated() {
      var entry = Entry(binding, key: keys?[index])
      let bucket = buckets.bucket(of: entry.key)
      if buckets.lookup.keys[bucket] != 0 { return nil }
      switch entry.kind {
      case .serves(.cacheable):
        let shape = UnitLayout.Shape(cacheable: binding.registration.feature)
        entry.instanceOffset = shape.instanceOffset
        shapes.append(shape)
        owned.append(bucket)
      case .serves(.cacheablePerContext):
        shapes.append(.multiton)
        owned.append(bucket)
      case .serves(.static), .serves(.disposable), .conflict:
        break
      }
      buckets.insert(entry, at: bucket)
    }
    let givingOutAll = parent == nil
    let units = UnitLayout(shapes, givingOutAll: givingOutAll)
    self.units = units
    for (unit, bucket) in owned.enumerated() {
      buckets.updateEntry(at: bucket) { entry in
        entry.unitWord = units.words[unit]
        if givingOutAll { entry.fixedOffset = Int(units.words[unit].load(ordering: .relaxed)) - 1 }
      }
    }
    var count = own.count
    if let parent {
      let lookup = parent.buckets.lookup
      for index in 0..<parent.buckets.capacity where lookup.keys[index] != 0 {
        let bucket = buckets.bucket(of: lookup.keys[index])
        if buckets.lookup.keys[bucket] != 0 { continue }  // replaced by this scope
        var entry = lookup.entries[index]
        entry.depth += 1
        buckets.insert(entry, at: bucket)
        count += 1
      }
    }
    self.count = count
    self.buckets = buckets
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
