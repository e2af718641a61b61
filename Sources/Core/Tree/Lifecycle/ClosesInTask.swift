/// The branches whose close the current task runs, so that a close never waits for itself.
///
/// A close runs its plan in a task of its own, with this as a task-local: a teardown that closes its
/// own branch again (or a branch whose close includes it), directly or through a task it starts,
/// finds its branch here and does not wait for the close it is part of.
final class ClosesInTask: Sendable {
  /// The branches of the plan, each kept alive by the plan while the task runs it.
  private let branches: Set<ObjectIdentifier>
  /// The async loads in flight in those branches when the close started, which it waits for.
  private let loads: Set<ObjectIdentifier>
  /// The close the task that started this one was running, if any.
  private let enclosing: ClosesInTask?

  init(_ plan: CloseStep, enclosing: ClosesInTask?) {
    var branches: Set<ObjectIdentifier> = []
    var loads: Set<ObjectIdentifier> = []
    func collect(_ step: CloseStep) {
      branches.insert(ObjectIdentifier(step.branch))
      loads.formUnion(step.branch.asyncLoadsInFlight.map(ObjectIdentifier.init))
      step.children.forEach(collect)
    }
    collect(plan)
    self.branches = branches
    self.loads = loads
    self.enclosing = enclosing
  }

  /// Whether the task runs the close of `branch`.
  func contains(_ branch: Branch) -> Bool {
    branches.contains(ObjectIdentifier(branch)) || enclosing?.contains(branch) == true
  }

  /// Whether the current task runs inside one of the loads this close waits for: the close could
  /// only end after the task's own load, which waits for the close.
  func waitsForTheCurrentTask() -> Bool {
    guard !loads.isEmpty else { return false }
    if Self.outsideLoads.contains(where: loads.contains) { return true }
    var frame = AsyncFrame.current
    while let current = frame {
      if loads.contains(ObjectIdentifier(current.load)) { return true }
      frame = current.parent
    }
    return false
  }

  /// The loads outside the table (``Branch/beginOutsideLoad(_:at:)``) the current task runs inside,
  /// which have no frame on its async path.
  @TaskLocal static var outsideLoads: [ObjectIdentifier] = []

  /// The close the current task runs, if any.
  @TaskLocal static var current: ClosesInTask?
}
