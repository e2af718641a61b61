/// Work a registry named with `beforeServing`: run once by a start, after the eager loads.
package struct StartWork: Sendable {
  /// The work, given the started branch's features.
  let run: @Sendable (Features) async throws -> Void
  /// How long it may take, if limited.
  let timeLimit: Duration?
  /// Where `beforeServing` was called.
  let site: SourceLocation
}
