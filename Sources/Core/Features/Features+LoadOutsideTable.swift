extension Features {
  /// Runs `load`, which does not go through the branch's table (a test container's
  /// `features.load(...)`), as one of the branch's loads: it fails on a closed branch, and a close
  /// that starts meanwhile waits for it, then tears down what it loaded.
  ///
  /// - Parameter registration: What loaded the instance: its teardown, if it has one, runs when
  ///   the branch closes.
  package func loadOutsideTable<F: Feature>(
    _ feature: F.Type, tornDownBy registration: Registration?, at location: SourceLocation, _ load: () throws -> F
  ) throws -> F {
    try withBranch(at: location) { branch in
      let tracked = try AsyncLoad<F>.outsideTable(in: branch, at: location)
      let outcome = Result { try load() }
      tracked.endOutsideTable(in: branch, outcome, tornDownBy: registration)
      return try outcome.get()
    }
  }

  /// ``loadOutsideTable(_:tornDownBy:at:_:)`` for an async load.
  package func loadOutsideTable<F: Feature>(
    _ feature: F.Type, tornDownBy registration: Registration?, at location: SourceLocation,
    _ load: () async throws -> F
  ) async throws -> F {
    try await withBranch(at: location) { branch in
      let tracked = try AsyncLoad<F>.outsideTable(in: branch, at: location)
      let outcome: Result<F, any Error>
      do {
        outcome = .success(
          try await LifecycleWork.$current.withValue(.loader(F.self)) { try await load() })
      } catch {
        outcome = .failure(error)
      }
      tracked.endOutsideTable(in: branch, outcome, tornDownBy: registration)
      return try outcome.get()
    }
  }
}
