/// One branch of a close's plan: a branch the close holds, and the steps of its open children,
/// newest first, which close before it.
@usableFromInline
struct CloseStep: @unchecked Sendable {
  // Sendable: built under the branches' locks before the close runs, read only afterwards by the
  // one task that runs the close.
  let branch: Branch
  /// Whether this close runs the branch's teardowns; `false` when another close of it started
  /// first, whose outcome this one waits for.
  let runsTeardowns: Bool
  /// The steps of the branch's children, which close before it.
  let children: [CloseStep]

  /// Marks `branch` and every descendant that is not closed yet as closed, under their locks,
  /// parent before child: from here on no request, load or branch starts through them.
  ///
  /// - Parameters:
  ///   - levelsUp: How far above `branch` the closed branch is.
  ///   - collecting: Whether to hold the descendants and return their steps; `false` for a branch
  ///     that is being released (its descendants are marked, and held by nobody).
  /// - Returns: The steps of `branch`'s children this close holds (none when not `collecting`);
  ///   `nil` when `branch` was closed already.
  static func markClosed(_ branch: Branch, at site: SourceLocation, levelsUp: Int, collecting: Bool) -> [CloseStep]? {
    branch.anchor.borrow { anchor in
      anchor.withChildren {
        let start = branch.state.withLock { $0.lifecycle.startClose(.init(site: site, levelsUp: levelsUp)) }
        guard start == .run else { return nil }
        branch.mirrorClosed()
        // Property streams end with the branch: an `observe` made from now on is refused.
        branch.existingProperties?.finishObservers()
        var steps: [CloseStep] = []
        anchor.forEachChild { child in
          // A child without holders is being released, or not handed out yet: it is marked (a new
          // one then fails to be made) but holds nothing a close could reach. This lock keeps it
          // from being freed meanwhile: its deinit first leaves this list.
          let held = collecting ? child.anchor.borrow { $0.holdIfAlive() } : nil
          if let grandchildren = markClosed(child, at: site, levelsUp: levelsUp + 1, collecting: held != nil) {
            if let held { steps.append(CloseStep(branch: held, runsTeardowns: true, children: grandchildren)) }
          } else if let held {
            steps.append(CloseStep(branch: held, runsTeardowns: false, children: []))
          }
        }
        return steps
      }
    }
  }

  /// Runs this step of `closing`'s plan: each child (with its own children first), then the
  /// branch itself.
  func run(of closing: ClosesInTask) async -> [TeardownFailed.Failure] {
    var failures: [TeardownFailed.Failure] = []
    for child in children {
      failures += await child.run(of: closing)
      child.branch.anchor.borrow { $0.release() }
    }
    guard runsTeardowns else {
      _ = await CloseRemainder.outcomeOfFirstClose(of: branch)
      return []
    }
    failures += await tearDown(of: closing)
    branch.finishClose(with: failures)
    closing.endedClose(of: branch)
    return failures
  }

  /// Waits for the loads in flight in the branch, then runs the teardowns of the instances cached
  /// there, newest first. A teardown that throws does not stop the others.
  private func tearDown(of closing: ClosesInTask) async -> [TeardownFailed.Failure] {
    // None can start any more, since the branch is marked closed; each that was claimed before
    // ends (and records its teardown) first.
    for load in branch.loadsInFlight() { await load.ended() }
    // Instances renewals forgot here are theirs to tear down; the close ends after them.
    await waitForTeardownsOfRenewals(of: closing)
    let teardowns = branch.state.withLock { state in
      defer { state.teardowns = [] }
      return state.teardowns
    }
    var failures: [TeardownFailed.Failure] = []
    for teardown in teardowns.reversed() {
      if let failure = await teardown.run(in: branch) { failures.append(failure) }
    }
    branch.definition.observer?.branchClosed(BranchEvent(branchPath: branch.path, time: .now))
    return failures
  }

  /// Waits until the renewals that forgot instances in the branch have run their teardowns, but
  /// for those that wait, through others, for this close (a teardown that closes the branch again,
  /// an ancestor, or a sibling this close closes): the close ends without them, as it does for a
  /// close it is part of.
  private func waitForTeardownsOfRenewals(of closing: ClosesInTask) async {
    guard let state = branch.existingState else { return }
    var waitedFor: [HeldInstances.RenewalTeardowns] = []
    var waitingForThisClose: [HeldInstances.RenewalTeardowns] = []
    defer { for renewal in waitedFor { WaitGraph.remove(closing, waitingFor: renewal) } }
    while true {
      let pending = state.withLock { $0.held.teardownsOfRenewals }
      // The waits for renewals whose teardowns here all ran (finished, which the graph passes
      // over) go.
      for renewal in waitedFor where !pending.contains(where: { $0 === renewal }) {
        WaitGraph.remove(closing, waitingFor: renewal)
      }
      waitedFor.removeAll { renewal in !pending.contains { $0 === renewal } }
      // The waits for renewals that forgot instances here since the last pass.
      for renewal in pending where !(waitedFor + waitingForThisClose).contains(where: { $0 === renewal }) {
        if ClosesInTask.recordWait(of: closing, for: renewal) {
          waitingForThisClose.append(renewal)
        } else {
          waitedFor.append(renewal)
        }
      }
      let (skipped, seen) = (waitingForThisClose, waitedFor + waitingForThisClose)
      let isDone = { (state: Branch.State) in
        state.held.teardownsOfRenewals.allSatisfy { renewal in skipped.contains { $0 === renewal } }
      }
      // Resumed when a renewal's teardown here ends, or another renewal forgets an instance here,
      // whose wait the next pass records.
      await state.suspend(
        until: { isDone($0) || $0.held.teardownsOfRenewals.contains { renewal in !seen.contains { $0 === renewal } } },
        waitingIn: \.held.closesWaitingForRenewals)
      if state.withLock({ isDone($0) }) { return }
    }
  }
}
