/// A ``KeyedBranches`` key with its type erased, so the set's state is compiled once, not per key
/// type.
struct BranchKey: Hashable, @unchecked Sendable {
  // Sendable: the only initialiser takes a `Sendable` value, and `AnyHashable` only boxes it; it
  // loses the conformance, not the value's sendability.
  private let base: AnyHashable

  init<Key: Hashable & Sendable>(_ key: Key) {
    base = AnyHashable(key)
  }
}
