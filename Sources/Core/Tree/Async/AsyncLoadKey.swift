/// The key of an async load in flight in a branch: the feature, and the context for multitons.
struct AsyncLoadKey: Hashable, Sendable {
  /// The feature's type; for a load outside the table, the load itself.
  let feature: ObjectIdentifier
  let context: ContextKey?

  init(feature: ObjectIdentifier, context: ContextKey?) {
    self.feature = feature
    self.context = context
  }

  /// The key of a load a test container runs (see ``Branch/beginOutsideLoad(_:at:)``): its own, so
  /// that concurrent loads of one feature are each waited for.
  init(outsideLoad load: AsyncLoadNode) {
    self.init(feature: ObjectIdentifier(load), context: nil)
  }
}
