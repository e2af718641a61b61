/// What a request finds when it asks for an async load.
enum AsyncClaim<F: Feature> {
  case loaded(F)
  case join(AsyncLoad<F>)
  case own(AsyncLoad<F>)
  /// The branch is closing: no load may start.
  case closed
}
