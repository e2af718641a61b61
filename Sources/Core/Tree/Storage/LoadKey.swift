/// What a branch caches an instance under, and loads it under: the feature, and the context for a
/// multiton.
struct LoadKey: Hashable, Sendable {
  /// The feature's type; for a load outside the table, the load itself.
  let feature: ObjectIdentifier
  let context: ContextKey?

  init(feature: ObjectIdentifier, context: ContextKey?) {
    self.feature = feature
    self.context = context
  }

  /// The key of a cacheable `feature`'s instance for `context`: one with a context is keyed by it,
  /// one without (`NoContext`) by the feature alone.
  init<F: Feature>(_ feature: F.Type, context: F.Context) {
    // A cacheable's Context is Hashable.
    let isKeyed = F.Context.self != NoContext.self
    self.init(feature: ObjectIdentifier(feature), context: isKeyed ? ContextKey(context as! AnyHashable) : nil)
  }

  /// The key of a load a test container runs (see ``AsyncLoad/outsideTable(in:at:)``): its own, so
  /// that concurrent loads of one feature are each waited for.
  init(outsideLoad load: AsyncLoadNode) {
    self.init(feature: ObjectIdentifier(load), context: nil)
  }

  /// The feature's key in a ``FeatureTable``.
  var tableKey: UInt { UInt(bitPattern: feature) }
}

/// A context value as a dictionary key.
///
/// One reference: a key without a context (`nil`) is a null word, which copies without touching a
/// reference count, so that keys and the records made of them stay cheap to copy.
struct ContextKey: Hashable, @unchecked Sendable {
  // Sendable: it only wraps a feature's `Context`, which is `Sendable`.
  private final class Storage {
    let value: AnyHashable
    /// The value's hash, computed once: a key is hashed in several tables (a renewal's, the
    /// held instances), and a boxed value's hash is dear.
    let hash: Int

    init(_ value: AnyHashable) {
      self.value = value
      hash = value.hashValue
    }
  }

  private let storage: Storage

  init(_ value: AnyHashable) {
    storage = Storage(value)
  }

  /// The context.
  var value: AnyHashable { storage.value }

  static func == (lhs: ContextKey, rhs: ContextKey) -> Bool {
    lhs.storage === rhs.storage || (lhs.storage.hash == rhs.storage.hash && lhs.value == rhs.value)
  }

  func hash(into hasher: inout Hasher) { hasher.combine(storage.hash) }
}
