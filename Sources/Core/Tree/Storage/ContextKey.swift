/// A context value as a dictionary key.
// Sendable: it only wraps a feature's `Context`, which is `Sendable`.
struct ContextKey: Hashable, @unchecked Sendable {
  let value: AnyHashable

  init(_ value: AnyHashable) {
    self.value = value
  }
}
