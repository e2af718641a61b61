/// One branch of a close's plan: a branch the close holds, and the steps of its open children,
/// newest first, which close before it.
@usableFromInline
struct CloseStep: Sendable {
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

  /// Runs this step: each child (with its own children first), then the branch itself.
  func run() async -> [TeardownFailed.Failure] {
    var failures: [TeardownFailed.Failure] = []
    for child in children {
      failures += await child.run()
      child.branch.anchor.borrow { $0.release() }
    }
    guard runsTeardowns else {
      // Another close runs the branch's teardowns, which never wait for a close: its outcome comes.
      _ = await CloseRemainder.outcomeOfFirstClose(of: branch)
      return []
    }
    failures += await tearDown()
    branch.finishClose(with: failures)
    return failures
  }

  /// Waits for the loads in flight in the branch and for the teardowns renewals run from there,
  /// then runs the teardowns owed there, newest first. A teardown that throws does not stop the
  /// others.
  private func tearDown() async -> [TeardownFailed.Failure] {
    // None can start any more, since the branch is marked closed; each that was claimed before
    // ends (and records its teardown) first. Loads and renewals' teardowns are lifecycle work,
    // which never waits for a close: these waits end.
    for load in branch.loadsInFlight() { await load.ended() }
    // Teardowns a renewal took from here before the close started run first: a renewal takes
    // none from a closing branch, and runs those it took without waiting for anything else.
    await branch.existingState?.suspend(
      until: { $0.teardowns.runningForRenewals == 0 }, waitingIn: \.teardowns.closesWaitingForRenewals)
    // Those of instances renewals forgot and did not take included, in the order of their loads.
    let teardowns = branch.state.withLock { $0.teardowns.takeAll() }
    var failures: [TeardownFailed.Failure] = []
    for teardown in teardowns.reversed() {
      if let failure = await teardown.run(in: branch) { failures.append(failure) }
    }
    branch.definition.observer?.branchClosed(BranchEvent(branchPath: branch.path, time: .now))
    return failures
  }
}
