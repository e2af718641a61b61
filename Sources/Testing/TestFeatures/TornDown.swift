import Arbor

/// One teardown a test container ran as one of its branches closed: what a test asserts with
/// ``Arbor/Features/tornDown``.
///
/// ```swift
/// try await session.close()
/// #expect(features.tornDown.map(\.name) == ["Database", "Cache"])
/// ```
public struct TornDown: Sendable, CustomStringConvertible {
  /// The feature whose instance was torn down.
  public let feature: any Feature.Type
  /// Its implementation: `Database.live()`.
  public let implementation: String
  /// The branch that cached the instance: `Root › SessionScope(Session(user: "ann"))`.
  public let branch: String
  /// What the teardown threw, if it threw.
  public let failure: (any Error)?

  /// The feature's name: `Database`.
  public var name: String { String(describing: feature) }

  /// `Database (Database.live()) in Root › SessionScope(...)`, and `, threw ...` when it threw.
  public var description: String {
    "\(name) (\(implementation)) in \(branch)" + (failure.map { ", threw \($0)" } ?? "")
  }
}
