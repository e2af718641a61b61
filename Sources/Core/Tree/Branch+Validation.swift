extension Branch {
  /// Runs the loader of `binding`, one of this branch's scope's own, once: on the path like any
  /// load (so what it requests is reported along its path), without caching what it returns. What
  /// it returns is torn down at once if its registration has a teardown, so that validation leaves
  /// no connection or file open.
  ///
  /// - Returns: `false` when the loader takes a context validation cannot invent (a multiton's
  ///   key, a disposable's argument), so it did not run.
  func runLoaderOnce(of binding: Binding, at location: SourceLocation) async throws -> Bool {
    try await runLoaderOnce(binding.registration.feature, at: location)
  }

  private func runLoaderOnce<F: Feature>(_ feature: F.Type, at location: SourceLocation) async throws -> Bool {
    let context: F.Context
    if let none = NoContext() as? F.Context {
      context = none
    } else if let void = () as? F.Context {
      context = void
    } else {
      return false
    }
    guard let entry = table.entry(for: FeatureTable.key(feature)) else { return false }
    let instance =
      if entry.isAsync {
        try await loadAsync(feature, context: context, entry: entry.pointer.pointee, frame: nil, at: location)
      } else {
        try load(feature, context: context, entry: entry, at: location)
      }
    // A registration of `F` with a teardown holds a `Teardown<F>`.
    if let teardown = entry.binding.object.registration.teardown as? Teardown<F> {
      try await teardown.run(instance)
    }
    return true
  }
}
