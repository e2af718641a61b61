/// A ``KeyedBranches`` key with its type erased, so the set's state is compiled once, not per key
/// type.
///
/// The usual keys (a `String` token, an `Int` id) are kept as they are: comparing two
/// `AnyHashable`s unboxes both through the runtime, which took most of a session's lease.
struct BranchKey: Hashable, @unchecked Sendable {
  // Sendable: the only initialiser takes a `Sendable` value, and `AnyHashable` only boxes it; it
  // loses the conformance, not the value's sendability.
  private enum Storage: Hashable {
    case string(String)
    case int(Int)
    case other(AnyHashable)

    // Written out: the synthesised `==` copies both operands into a tuple to switch on them, and
    // a lease compares and hashes its key on every request.
    static func == (lhs: Storage, rhs: Storage) -> Bool {
      switch lhs {
      case .string(let left):
        guard case .string(let right) = rhs else { return false }
        return left == right
      case .int(let left):
        guard case .int(let right) = rhs else { return false }
        return left == right
      case .other(let left):
        guard case .other(let right) = rhs else { return false }
        return left == right
      }
    }

    func hash(into hasher: inout Hasher) {
      switch self {
      case .string(let value): hasher.combine(value)
      case .int(let value): hasher.combine(value)
      case .other(let value): hasher.combine(value)
      }
    }
  }

  private let storage: Storage

  init<Key: Hashable & Sendable>(_ key: Key) {
    if let key = key as? String {
      storage = .string(key)
    } else if let key = key as? Int {
      storage = .int(key)
    } else {
      storage = .other(AnyHashable(key))
    }
  }
}
