/// An immutable open-addressing hash table from a feature's type to how a scope resolves it.
///
/// Built once per scope definition and only read afterwards, so lookups take no lock. Keys are the
/// addresses of feature metatypes, hashed with one multiply instead of `Hasher`.
package struct FeatureTable: Sendable {
  /// How a scope resolves one feature. Every field is trivial, so reading an entry touches no
  /// reference count; the binding is kept alive by its scope definition.
  // Sendable: `payload` and `binding` point at immutable objects kept alive by the scope definition.
  package struct Entry: @unchecked Sendable {
    package enum Kind: UInt8, Sendable {
      case `static`
      case disposable
      case cacheable
      case contextualCacheable
      case conflict
    }

    package let key: UInt
    package let kind: Kind
    /// How many branches up, from a branch of this scope, the registering branch is.
    package var depth: Int
    /// The cache slot in the registering branch (cacheables without a context).
    package let slot: Int
    /// The registration's payload: a `Box<F>` or a `Loader<F>`.
    package let payload: UnsafeRawPointer
    package let binding: Unmanaged<Binding>

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
      payload = UnsafeRawPointer(Unmanaged.passUnretained(registration.payload).toOpaque())
      self.binding = Unmanaged.passUnretained(binding)
    }
  }

  package let entries: [Entry]
  private let slots: [Int32]  // index into entries, -1 when empty
  private let shift: UInt

  init(_ entries: [Entry]) {
    self.entries = entries
    var capacityBits: UInt = 2
    while (1 << capacityBits) < entries.count * 2 { capacityBits += 1 }
    shift = UInt(UInt.bitWidth) - capacityBits
    var slots = [Int32](repeating: -1, count: 1 << capacityBits)
    let mask = slots.count - 1
    for (index, entry) in entries.enumerated() {
      var slot = Self.hash(entry.key, shift: shift)
      while slots[slot] >= 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(index)
    }
    self.slots = slots
  }

  @inline(__always)
  package static func key(_ type: Any.Type) -> UInt {
    UInt(bitPattern: ObjectIdentifier(type))
  }

  @inline(__always)
  private static func hash(_ key: UInt, shift: UInt) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// The entry for a feature type, if this scope or an ancestor registers it.
  @inline(__always)
  package func entry(for key: UInt) -> Entry? {
    slots.withUnsafeBufferPointer { slots in
      let mask = slots.count - 1
      var slot = Self.hash(key, shift: shift)
      while true {
        let index = Int(slots[slot])
        if index < 0 { return nil }
        let entry = entries.withUnsafeBufferPointer { $0[index] }
        if entry.key == key { return entry }
        slot = (slot + 1) & mask
      }
    }
  }
}
