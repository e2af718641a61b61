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

  /// The key of `feature`'s instance for `context`: a multiton's (`isMultiton`) is keyed by its
  /// context, any other cacheable's by the feature alone.
  init<F: Feature>(_ feature: F.Type, context: F.Context, isMultiton: Bool) {
    // A cacheable's Context is Hashable.
    self.init(feature: ObjectIdentifier(feature), context: isMultiton ? ContextKey(context as! AnyHashable) : nil)
  }

  /// The key of a load a test container runs (see ``Branch/beginOutsideLoad(_:at:)``): its own, so
  /// that concurrent loads of one feature are each waited for.
  init(outsideLoad load: AsyncLoadNode) {
    self.init(feature: ObjectIdentifier(load), context: nil)
  }

  /// The feature's key in a ``FeatureTable``.
  var tableKey: UInt { UInt(bitPattern: feature) }
}

/// A context value as a dictionary key.
// Sendable: it only wraps a feature's `Context`, which is `Sendable`.
struct ContextKey: Hashable, @unchecked Sendable {
  let value: AnyHashable

  init(_ value: AnyHashable) {
    self.value = value
  }
}
