/// The loading closure of one feature, kept behind a reference so registrations stay type-erased.
@usableFromInline
package final class Loader<F: Feature>: Sendable {
  /// The closure as written when it takes a context; a placeholder that is never called otherwise.
  @usableFromInline let load: @Sendable (F.Context, Features) throws -> F
  /// The closure as written when it takes no context: calling it directly saves a call through
  /// an adapting closure on every load. Not optional, so that calling it borrows it instead of
  /// copying it out of an optional (stored reabstracted, it would need a thunk on every call).
  @usableFromInline let loadWithoutContext: @Sendable (Features) throws -> F
  @usableFromInline let takesContext: Bool

  init(_ load: @escaping @Sendable (F.Context, Features) throws -> F) {
    self.load = load
    // `takesContext` guards every call: this form is never called.
    loadWithoutContext = { _ in preconditionFailure("a loader that takes a context was called without one") }
    takesContext = true
  }

  init(withoutContext load: @escaping @Sendable (Features) throws -> F) {
    self.load = { _, features in try load(features) }
    loadWithoutContext = load
    takesContext = false
  }

  /// Runs the loader.
  @inlinable @inline(__always)
  package func callAsFunction(_ context: F.Context, _ features: Features) throws -> F {
    if takesContext { return try load(context, features) }
    return try loadWithoutContext(features)
  }
}
