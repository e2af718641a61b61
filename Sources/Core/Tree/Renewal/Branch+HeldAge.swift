extension Branch {
  /// When the instance of `feature`, a cacheable without a context, that this branch holds under its
  /// lock was loaded and when it expires, with the time now, all on the tree's clock: what
  /// ``Features/which(_:file:line:)`` tells. `nil` when the branch holds none (an instance cached in
  /// place, of a feature without a time-to-live never renewed, has no recorded age).
  func heldAge(of feature: any Feature.Type) -> (loadedAt: Duration, expiresAt: Duration?, now: Duration)? {
    let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
    guard
      let held = existingState?.withLock({ state in
        state.held.instances[key].map { (loadedAt: $0.loadedAt, expiresAt: $0.expiresAt) }
      })
    else { return nil }
    return (held.loadedAt, held.expiresAt, definition.renewals.now())
  }
}
