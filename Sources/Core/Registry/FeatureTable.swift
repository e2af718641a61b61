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
    @usableFromInline
    package enum Kind: UInt8, Sendable {
      case `static`
      case disposable
      case cacheable
      case contextualCacheable
      case conflict
    }

    @usableFromInline package let key: UInt
    @usableFromInline package let kind: Kind
    /// How many branches up, from a branch of this scope, the registering branch is.
    @usableFromInline package var depth: Int
    /// The cache slot in the registering branch (cacheables without a context).
    @usableFromInline package let slot: Int
    /// Where the slot's instance (cacheables without a context), or the multiton's word (cacheables
    /// with one), is stored, in bytes from the start of the registering branch's storage.
    @usableFromInline package var offset: Int
    /// The registration's payload: a `Box<F>` or a `Loader<F>`.
    @usableFromInline package let payload: UnsafeRawPointer
    package let binding: Unmanaged<Binding>
    /// Whether the loader is `async`: only `try await features.instance()` can run it.
    @usableFromInline package let isAsync: Bool

    init(_ binding: Binding) {
      let registration = binding.registration
      key = FeatureTable.key(registration.feature)
      kind =
        if !binding.conflicts.isEmpty {
          .conflict
        } else {
          switch registration.kind {
          case .static: .static
          case .disposable: .disposable
          case .cacheable: registration.isContextual ? .contextualCacheable : .cacheable
          }
        }
      depth = 0
      slot = binding.slot
      offset = 0
      payload = UnsafeRawPointer(Unmanaged.passUnretained(registration.payload).toOpaque())
      self.binding = Unmanaged.passUnretained(binding)
      isAsync = registration.isAsync
    }
  }

  /// How a branch of this scope stores what it caches, in one allocation: the state word of every
  /// slot (see ``Branch``), then a word per multiton (a cacheable with a context) for its
  /// ``Multiton``, made on first use, then each slot's instance, in place rather than boxed.
  package struct Storage: Sendable {
    /// One slot of a branch of this scope: where its instance lives and how to destroy it.
    package struct Slot: Sendable {
      package let index: Int
      package let offset: Int
      package let destroyer: InstanceDestroyer
    }

    package let slots: [Slot]
    /// How many slots, hence state words, a branch has.
    package let count: Int
    /// How many multiton words follow the state words.
    package let multitonCount: Int
    package let byteCount: Int
    package let alignment: Int

    /// Lays out the slots of `entries`, this scope's own cacheables without a context, in slot
    /// order, and the words of its multitons, and sets their offsets.
    init(_ entries: inout [Entry]) {
      var slots: [Slot] = []
      // Slots are numbered densely from 0, so placing each entry at its slot sorts them.
      var bySlot: [Int?] = []
      var multitons: [Int] = []
      for index in entries.indices where entries[index].depth == 0 {
        switch entries[index].kind {
        case .cacheable:
          let slot = entries[index].slot
          if slot >= bySlot.count { bySlot.append(contentsOf: repeatElement(nil, count: slot + 1 - bySlot.count)) }
          bySlot[slot] = index
        case .contextualCacheable:
          multitons.append(index)
        case .static, .disposable, .conflict:
          break
        }
      }
      let own = bySlot.compactMap { $0 }
      let count = bySlot.count
      for (word, index) in multitons.enumerated() {
        entries[index].offset = (count + word) * MemoryLayout<UInt>.stride
      }
      var byteCount = (count + multitons.count) * MemoryLayout<UInt>.stride
      var alignment = MemoryLayout<UInt>.alignment
      for index in own {
        let destroyer = InstanceDestroyer.make(for: entries[index].binding.takeUnretainedValue().registration.feature)
        byteCount = (byteCount + destroyer.alignment - 1) / destroyer.alignment * destroyer.alignment
        entries[index].offset = byteCount
        slots.append(Slot(index: entries[index].slot, offset: byteCount, destroyer: destroyer))
        byteCount += destroyer.size
        alignment = max(alignment, destroyer.alignment)
      }
      self.slots = slots
      self.count = count
      self.multitonCount = multitons.count
      self.byteCount = byteCount
      self.alignment = alignment
    }
  }

  /// What a branch needs to make and free its storage, without a reference count: kept by the
  /// table, which its scope definition keeps for every branch of the scope.
  // Sendable: the pointers are written once, when the table is built, and only read afterwards.
  package struct BranchLayout: @unchecked Sendable {
    /// A slot of ``Storage``, without the reference: `Storage` keeps the destroyer alive.
    package struct Slot {
      package let index: Int
      package let offset: Int
      package let destroyer: Unmanaged<InstanceDestroyer>
    }

    /// The offset of each slot's instance, by slot index.
    package let offsets: UnsafeMutablePointer<Int>
    package let slots: UnsafeMutableBufferPointer<Slot>
    package let count: Int
    /// How many multiton words follow the `count` state words.
    package let multitonCount: Int
    package let byteCount: Int
    package let alignment: Int
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
    @inlinable package var depth: Int { pointer.pointee.depth }
    @inlinable package var slot: Int { pointer.pointee.slot }
    @inlinable package var offset: Int { pointer.pointee.offset }
    @inlinable package var payload: UnsafeRawPointer { pointer.pointee.payload }
    @inlinable package var isAsync: Bool { pointer.pointee.isAsync }
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

    /// The entry for a feature type, if this scope or an ancestor registers it.
    @inlinable @inline(__always)
    package func entry(for key: UInt) -> EntryReference? {
      let mask = Int(bitPattern: UInt.max &>> shift)
      var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
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
    let layout: BranchLayout

    init(_ entries: [Entry], storage: Storage) {
      let offsets = UnsafeMutablePointer<Int>.allocate(capacity: max(1, storage.count))
      offsets.initialize(repeating: 0, count: max(1, storage.count))
      for slot in storage.slots { offsets[slot.index] = slot.offset }
      let slots = UnsafeMutableBufferPointer<BranchLayout.Slot>.allocate(capacity: storage.slots.count)
      _ = slots.initialize(
        from: storage.slots.map { .init(index: $0.index, offset: $0.offset, destroyer: .passUnretained($0.destroyer)) })
      layout = BranchLayout(
        offsets: offsets, slots: slots, count: storage.count, multitonCount: storage.multitonCount,
        byteCount: storage.byteCount,
        alignment: storage.alignment)
      var capacityBits: UInt = 2
      while (1 << capacityBits) < entries.count * 2 { capacityBits += 1 }
      let count = 1 << capacityBits
      let shift = UInt(UInt.bitWidth) - capacityBits
      let keys = UnsafeMutablePointer<UInt>.allocate(capacity: count)
      keys.initialize(repeating: 0, count: count)
      // Entries are trivial: the empty buckets' stay uninitialised, and none needs deinitialising.
      let buckets = UnsafeMutablePointer<Entry>.allocate(capacity: count)
      for entry in entries {
        var index = Int((entry.key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while keys[index] != 0 { index = (index + 1) & (count - 1) }
        keys[index] = entry.key
        (buckets + index).initialize(to: entry)
      }
      lookup = Lookup(keys: keys, entries: buckets, shift: shift)
    }

    deinit {
      UnsafeMutablePointer(mutating: lookup.keys).deallocate()
      UnsafeMutablePointer(mutating: lookup.entries).deallocate()
      layout.offsets.deallocate()
      layout.slots.deallocate()
    }
  }

  package let entries: [Entry]
  /// How a branch of this scope stores its cached instances.
  package let storage: Storage
  private let buckets: Buckets

  init(_ entries: [Entry]) {
    var entries = entries
    storage = Storage(&entries)
    self.entries = entries
    buckets = Buckets(entries, storage: storage)
  }

  /// The buckets, for a branch to keep while it keeps this table's scope definition.
  package var lookup: Lookup { buckets.lookup }
  /// How a branch of this scope lays out its storage; valid as long as the table.
  package var layout: BranchLayout { buckets.layout }

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

/// Destroys the instances of one feature type stored in place in a branch.
package class InstanceDestroyer: @unchecked Sendable {
  // Sendable: immutable; subclasses add no state.
  package let size: Int
  package let alignment: Int

  init(size: Int, alignment: Int) {
    self.size = size
    self.alignment = alignment
  }

  /// The destroyer of `feature`'s instances.
  static func make(for feature: any Feature.Type) -> InstanceDestroyer {
    typed(feature)
  }

  private static func typed<F: Feature>(_ feature: F.Type) -> InstanceDestroyer {
    TypedInstanceDestroyer(feature)
  }

  /// Destroys the instance at `instance`.
  package func destroy(_ instance: UnsafeMutableRawPointer) {}
}

private final class TypedInstanceDestroyer<F: Feature>: InstanceDestroyer, @unchecked Sendable {
  init(_ feature: F.Type) {
    super.init(size: MemoryLayout<F>.size, alignment: MemoryLayout<F>.alignment)
  }

  override func destroy(_ instance: UnsafeMutableRawPointer) {
    instance.assumingMemoryBound(to: F.self).deinitialize(count: 1)
  }
}
