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
    loadWithoutContext = unsafeBitCast(NeverCalled(), to: Forms.self).withoutContext
    takesContext = true
  }

  init(withoutContext load: @escaping @Sendable (Features) throws -> F) {
    self.load = unsafeBitCast(NeverCalled(), to: Forms.self).withContext
    loadWithoutContext = load
    takesContext = false
  }

  /// Both forms of the closure, laid out as the stored properties are: a closure cast alone, as a
  /// generic value, would be wrapped in a reabstraction thunk (an allocation); in a struct whose
  /// fields are typed as these are, it keeps its layout.
  private struct Forms {
    let withContext: @Sendable (F.Context, Features) throws -> F
    let withoutContext: @Sendable (Features) throws -> F
  }

  /// Runs the loader.
  @inlinable @inline(__always)
  package func callAsFunction(_ context: F.Context, _ features: Features) throws -> F {
    if takesContext { return try load(context, features) }
    return try loadWithoutContext(features)
  }
}

/// What fills the form of a ``Loader``'s closure that it does not have, cast to ``Loader/Forms``.
///
/// A closure written in `Loader`'s generic context, adapting the other form or failing, would be a
/// heap allocation per registration: it captures its generic context. These are one plain function
/// with no context, so copying and destroying them, as either form, retains and releases nothing;
/// `takesContext` guards every call, so neither is ever called as the form it was cast to.
private struct NeverCalled {
  let first: @Sendable (Features) throws -> Never = neverCalled
  let second: @Sendable (Features) throws -> Never = neverCalled
}

private func neverCalled(_: Features) throws -> Never {
  preconditionFailure("a loader was called in the form it does not have")
}
