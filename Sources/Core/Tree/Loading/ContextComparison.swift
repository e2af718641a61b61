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

/// Compares one request's context with the contexts of loads on the path, casting it once: the
/// first frame of the same feature pays for the dynamic cast, every further one is a typed `==`.
struct ContextMatcher<Context> {
  private let compare: (ErasedInPlace) -> ContextComparison
  /// The context's hash, or 0 for one that cannot be hashed (which then compares as
  /// ``ContextComparison/incomparable`` or with `==`, value by value).
  let hash: () -> Int

  init(_ context: Context) {
    if Context.self == Void.self {
      compare = { _ in .same }
      hash = { 0 }
    } else if let hashable = context as? any Hashable, let typed = Self.typed(hashable) {
      (compare, hash) = typed
    } else {
      // Not `Hashable`, or a context type that is itself an existential: value by value.
      compare = { ContextComparison($0.load(as: Context.self), context) }
      hash = { 0 }
    }
  }

  /// How the context at `other` (a `Context`) compares.
  func callAsFunction(_ other: ErasedInPlace) -> ContextComparison { compare(other) }

  /// `==` against `value`, and its hash, for contexts stored as `H`: only when `H` is `Context`.
  private static func typed<H: Hashable>(
    _ value: H
  ) -> ((ErasedInPlace) -> ContextComparison, () -> Int)? {
    guard H.self == Context.self else { return nil }
    return ({ $0.load(as: H.self) == value ? .same : .different }, { value.hashValue })
  }
}

extension Equatable {
  /// Whether `other` is a value of this type equal to this one.
  fileprivate func isEqual(to other: Any) -> Bool {
    (other as? Self).map { $0 == self } ?? false
  }
}
