/// The teardown of one cacheable feature, kept behind a reference so registrations stay type-erased.
///
/// It runs once per cached instance when the branch that caches it closes (see
/// ``Features/close(file:line:)``).
package final class Teardown<F: Feature>: Sendable {
  package let run: @Sendable (F) async throws -> Void

  init(_ run: @escaping @Sendable (F) async throws -> Void) {
    self.run = run
  }
}
