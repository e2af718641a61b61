import Synchronization

/// The branches whose close the current task runs, so that a close never waits for itself.
///
/// A close runs its plan in a task of its own, with this as a task-local: a teardown that closes its
/// own branch again (or a branch whose close includes it), directly or through a task it starts,
/// finds its branch here and does not wait for the close it is part of.
///
/// Closes that run in tasks of their own, started apart, can wait for each other too: a teardown of
/// one session that closes another, while that one's teardown closes the first. Each close is a
/// node of the ``WaitGraph`` while its plan runs, and a close that waits for another's outcome
/// records the wait there (``OutcomeWait``): the wait that would close a loop is not
/// made, and that close returns at once, as a close that is part of the one it waits for does.
final class ClosesInTask: WaitGraph.Node, Sendable {
  /// The branches whose teardowns the plan runs, in the order their closes end (each after its
  /// children): a close of one of them that started later waits for this one.
  private let tearsDown: [ObjectIdentifier]
  /// How many of ``tearsDown`` ended their close.
  private let endedCount = Atomic<Int>(0)
  /// The branches whose teardowns the plan runs, and the ancestors of its branch, while the plan
  /// runs (not once it ended). A close of any of them, started elsewhere, waits for this one: it
  /// cannot end before a teardown of this one that waits for it. Identifiers stay unique meanwhile,
  /// since the plan keeps its branches alive, and each of them its ancestors. Not the branches of
  /// steps whose close another task runs: this close waits for those.
  private let waitedFor: Set<ObjectIdentifier>
  /// Set once the plan ended: ``waitedFor`` then lists nothing.
  private let hasEnded = Atomic<Bool>(false)
  /// The async loads in flight in the plan's branches when the close started, which it waits for,
  /// through the closes it waits for too.
  private let loads: Set<ObjectIdentifier>
  /// The close the task that started this one was running, if any.
  private let enclosing: ClosesInTask?

  init(_ plan: CloseStep, enclosing: ClosesInTask?) {
    var tearsDown: [ObjectIdentifier] = []
    var loads: Set<ObjectIdentifier> = []
    func collect(_ step: CloseStep) {
      loads.formUnion(Self.asyncLoadsInFlight(in: step.branch))
      step.children.forEach(collect)
      if step.runsTeardowns { tearsDown.append(ObjectIdentifier(step.branch)) }
    }
    collect(plan)
    self.tearsDown = tearsDown
    var branches = Set(tearsDown)
    var ancestor = Self.heldParent(of: plan.branch)
    while let current = ancestor {
      branches.insert(ObjectIdentifier(current))
      ancestor = Self.heldParent(of: current)
    }
    self.waitedFor = branches
    self.loads = loads
    self.enclosing = enclosing
  }

  /// Whether a close of `branch` that started elsewhere waits for a close the task runs: its own
  /// branch's, or an ancestor's.
  func contains(_ branch: Branch) -> Bool {
    (!hasEnded.load(ordering: .acquiring) && waitedFor.contains(ObjectIdentifier(branch)))
      || enclosing?.contains(branch) == true
  }

  /// The plan ended: a task started by one of its teardowns that closes one of its branches later
  /// waits for that close's outcome, as any other caller does.
  func ended() {
    // Sequentially consistent, as `recordWaiting` is: either it sees the end, or this sees it.
    hasEnded.store(true, ordering: .sequentiallyConsistent)
    guard isWaiting.load(ordering: .sequentiallyConsistent) else { return }
    Self.waitingCloses.withLock { closes in
      for branch in tearsDown where closes[branch] === self { closes[branch] = nil }
    }
  }

  /// The plan ended the close of `branch`, the next of ``tearsDown``: a close waiting for its
  /// outcome no longer waits for this one.
  func endedClose(of branch: Branch) {
    let branch = ObjectIdentifier(branch)
    let index = endedCount.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    assert(tearsDown[index] == branch, "a plan ended its branches' closes out of order")
    guard isWaiting.load(ordering: .sequentiallyConsistent) else { return }
    Self.waitingCloses.withLock { closes in
      if closes[branch] === self { closes[branch] = nil }
    }
  }

  var isFinished: Bool { hasEnded.load(ordering: .sequentiallyConsistent) }

  /// A close waits only through the waits it records.
  var waitsImplicitlyFor: (any WaitGraph.Node)? { nil }

  /// Whether this close ever waited for another's outcome: it is then in ``waitingCloses``.
  private let isWaiting = Atomic<Bool>(false)

  /// The closes that waited for another close's outcome while their plan ran, by the branches
  /// whose teardowns they run and whose close has not ended. Only a close that waits can be on a
  /// loop of closes waiting for each other (through the waits the graph records), so a close
  /// that never waits costs nothing here.
  private static let waitingCloses = Lock<[ObjectIdentifier: ClosesInTask]>.make([:])

  /// Puts this close in ``waitingCloses`` for each branch whose close it has not ended, before it
  /// records its first wait; not once it ended (a task its teardown started and did not await may
  /// wait later).
  private func recordWaiting() {
    guard !isWaiting.exchange(true, ordering: .sequentiallyConsistent) else { return }
    Self.waitingCloses.withLock { closes in
      guard !isFinished else { return }
      for branch in tearsDown[endedCount.load(ordering: .sequentiallyConsistent)...] { closes[branch] = self }
    }
  }

  /// The close running the teardowns of the branch `branch` identifies, if it waits for another
  /// and has not ended that branch's close.
  fileprivate static func waiting(_ branch: ObjectIdentifier) -> ClosesInTask? {
    waitingCloses.withLock { $0[branch] }
  }

  /// Records in the ``WaitGraph`` that `waiter` (a close's plan, a renewal or a start) waits for
  /// `node`, unless `node` waits, through others, for `waiter`.
  ///
  /// - Returns: Whether the wait would close a loop: it is then not recorded, and the caller does
  ///   not wait, as for a close it is part of.
  static func recordWait(of waiter: any WaitGraph.Node, for node: any WaitGraph.Node) -> Bool {
    // Before the wait is recorded: a close whose wait closes the loop later finds this one.
    (waiter as? ClosesInTask)?.recordWaiting()
    return WaitGraph.add(waiter, waitingFor: node, describeLoop: { _ in () }) != nil
  }

  /// Runs `body`, which awaits `run` (a refresh or a start the current task makes), with what the
  /// current task's waits are recorded as (``waitingAs``), if anything, waiting for `run` in the
  /// ``WaitGraph``: a loop through it is found. A new run waits for nothing yet, so this wait never
  /// closes a loop itself.
  static func waiting<R>(for run: WaitGraph.Run, _ body: () async throws -> R) async rethrows -> R {
    guard let waiter = waitingAs else { return try await body() }
    _ = recordWait(of: waiter, for: run)
    defer { WaitGraph.remove(waiter, waitingFor: run) }
    return try await body()
  }

  /// Runs `body`, which awaits `run`, with what the current task's waits are recorded as
  /// (``waitingAs``), if anything, waiting for `run` in the ``WaitGraph``; unless `run` waits,
  /// through others, for the current task's work (or is that work): the wait would never end, and
  /// `body` does not run.
  ///
  /// - Returns: What `body` returned; `nil` when the wait would close a loop.
  static func unlessALoop<R>(waitingFor run: WaitGraph.Run, _ body: () async throws -> R) async rethrows -> R? {
    guard let waiter = waitingAs else { return try await body() }
    if recordWait(of: waiter, for: run) { return nil }
    defer { WaitGraph.remove(waiter, waitingFor: run) }
    return try await body()
  }

  /// A wait of what the current task's waits are recorded as (``waitingAs``), if anything, for the
  /// outcome of the close of a branch, recorded in the ``WaitGraph`` until ``end()``.
  struct OutcomeWait {
    /// What waits and what it waits for, when the wait is recorded.
    private let recorded: Recorded?
    /// Whether the wait would close a loop of closes, renewals and starts waiting for each other
    /// through their teardowns: the caller then does not wait, as for a close it is part of.
    let closesALoop: Bool

    /// A wait recorded in the ``WaitGraph``.
    private struct Recorded {
      let waiter: any WaitGraph.Node
      let close: CloseOfBranch
    }

    /// Records that `waiter` waits for the close of `branch`, unless that close waits, through
    /// others, for `waiter`.
    init(of waiter: (any WaitGraph.Node)?, for branch: Branch) {
      guard let waiter, !waiter.isFinished else {
        (recorded, closesALoop) = (nil, false)
        return
      }
      let close = CloseOfBranch(ObjectIdentifier(branch))
      closesALoop = ClosesInTask.recordWait(of: waiter, for: close)
      recorded = closesALoop ? nil : Recorded(waiter: waiter, close: close)
    }

    /// The wait ended.
    func end() {
      if let recorded { WaitGraph.remove(recorded.waiter, waitingFor: recorded.close) }
    }
  }

  /// Whether the current task runs inside one of the loads this close waits for: the close could
  /// only end after the task's own load, which waits for the close.
  func waitsForTheCurrentTask() -> Bool {
    guard !loads.isEmpty else { return false }
    return Self.loadsOfTheCurrentTask.contains { loads.contains(ObjectIdentifier($0)) }
  }

  /// Whether the current task runs inside a load in flight in `branch` or below it, which a close
  /// of `branch` waits for: a close that started elsewhere, and that this task must not wait for.
  static func currentTaskLoads(below branch: Branch) -> Bool {
    guard AsyncFrame.current != nil || !outsideLoads.isEmpty else { return false }
    for load in loadsOfTheCurrentTask {
      var loading = load.branch  // `nil` once the load ended
      while let current = loading {
        if current === branch { return true }
        loading = Self.heldParent(of: current)
      }
    }
    return false
  }

  /// The parent of `branch`, when something keeps it alive as long as `branch`: the branch's hold
  /// on it, or, below a tether, the tether's own branch if it was not released.
  private static func heldParent(of branch: Branch) -> Branch? {
    branch.holdsParent ? branch.parent : branch.tether?.branch
  }

  /// The async loads in flight in `branch`.
  private static func asyncLoadsInFlight(in branch: Branch) -> [ObjectIdentifier] {
    let loads = branch.existingState?.withLock { $0.loads.inFlight } ?? []
    return loads.compactMap { $0 is AsyncLoadNode ? ObjectIdentifier($0) : nil }
  }

  /// The loads the current task runs inside, innermost first.
  private static var loadsOfTheCurrentTask: [AsyncLoadNode] {
    var loads: [AsyncLoadNode] = []
    var frame = AsyncFrame.current
    while let current = frame {
      loads.append(current.load)
      frame = current.parent
    }
    return loads + outsideLoads
  }

  /// The loads outside the table (``AsyncLoad/outsideTable(in:at:)``) the current task runs inside,
  /// which have no frame on its async path.
  @TaskLocal static var outsideLoads: [AsyncLoadNode] = []

  /// The close the current task runs, if any.
  @TaskLocal static var current: ClosesInTask?

  /// Runs `body` in the task that runs `closing`'s plan, whose waits are recorded as the plan's.
  static func with<R: Sendable>(_ closing: ClosesInTask, _ body: () async -> R) async -> R {
    await $current.withValue(closing) { await $waitingAs.withValue(closing) { await body() } }
  }

  /// What the current task's waits for closes and for the tree's turn are recorded as in the
  /// ``WaitGraph``: the close whose plan it runs, the renewal whose teardowns it runs, or the start
  /// it runs, whichever is innermost; `nil` in a task that runs none of them.
  @TaskLocal static var waitingAs: (any WaitGraph.Node & Sendable)?
}

/// The close of one branch, as a close waiting for its outcome sees it in the ``WaitGraph``: it
/// waits for the close that runs the branch's teardowns while that one waits for another, until
/// it ended the branch's close.
fileprivate final class CloseOfBranch: WaitGraph.Node {
  /// The branch, which the caller waiting for its close keeps alive meanwhile.
  let branch: ObjectIdentifier

  init(_ branch: ObjectIdentifier) {
    self.branch = branch
  }

  /// Never ended as a node: the close it waits for says when the wait no longer blocks.
  var isFinished: Bool { false }

  var waitsImplicitlyFor: (any WaitGraph.Node)? { ClosesInTask.waiting(branch) }
}
