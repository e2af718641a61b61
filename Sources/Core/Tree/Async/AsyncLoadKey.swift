/// The key of an async load in flight in a branch: the feature, and the context for multitons.
struct AsyncLoadKey: Hashable, Sendable {
  let feature: ObjectIdentifier
  let context: ContextKey?
}
