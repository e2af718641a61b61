/// The teardown of one cacheable feature, kept behind a reference so registrations stay type-erased.
///
/// It runs once per cached instance when the branch that caches it closes (see
/// ``Features/close(file:line:isolation:)``).
package final class Teardown<F: Feature>: Sendable {
  package let run: @Sendable (F) async throws -> Void

  init(_ run: @escaping @Sendable (F) async throws -> Void) {
    self.run = run
  }

}

/// The teardown of `run`, if there is one.
///
/// Unwrapped by hand, in a free function: `map`, or a static method of `Teardown<F>`, would make
/// unspecialised code instantiate the closure type's or the class's metadata for every feature
/// registered, teardown or not.
func teardown<F: Feature>(_ run: (@Sendable (F) async throws -> Void)?) -> Teardown<F>? {
  guard let run else { return nil }
  return Teardown(run)
}
