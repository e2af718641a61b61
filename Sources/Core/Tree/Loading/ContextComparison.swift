/// How the context of a request compares with the context of a load of the same feature that is
/// already on the resolution path: the same request (a cycle), another one (recursion), or one
/// that cannot be told apart because the context type is not `Equatable`.
enum ContextComparison {
  case same
  case different
  case incomparable

  /// Compares two contexts of one feature. `Void` is always the same; any `Equatable` type (every
  /// cacheable's, which must be `Hashable`) compares with `==`.
  init<Context>(_ lhs: Context, _ rhs: Context) {
    if Context.self == Void.self {
      self = .same
    } else if let lhs = lhs as? any Equatable {
      self = lhs.isEqual(to: rhs) ? .same : .different
    } else {
      self = .incomparable
    }
  }
}

extension Equatable {
  /// Whether `other` is a value of this type equal to this one.
  fileprivate func isEqual(to other: Any) -> Bool {
    (other as? Self).map { $0 == self } ?? false
  }
}
