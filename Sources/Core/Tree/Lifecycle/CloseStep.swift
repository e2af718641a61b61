/// One branch of a close's plan, held by it, after the steps of its open children, newest first.
@usableFromInline
struct CloseStep: Sendable {
  let branch: Branch
  /// `false` when another close of the branch started first: this one waits for its outcome.
  let runsTeardowns: Bool
  let children: [CloseStep]

  /// Marks `branch` and its descendants closed, parent before child, and returns the steps of the
  /// children it holds (`collecting` is `false` below a branch being released, which nobody holds);
  /// `nil` when `branch` was closed already.
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
          // A child without holders is being released or not handed out yet: marked, not held.
          // This lock keeps it from being freed meanwhile: its deinit first leaves this list.
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

  /// A teardown that throws does not stop the others.
  private func tearDown() async -> [TeardownFailed.Failure] {
    // None starts any more, and lifecycle work never waits for a close: these waits end.
    for load in branch.loadsInFlight() { await load.ended() }
    // A renewal takes teardowns only from an open branch, and runs them without waiting.
    await branch.existingState?.suspend(
      until: { $0.teardowns.runningForRenewals == 0 }, waitingIn: \.teardowns.closesWaitingForRenewals)
    // Including those of instances renewals forgot and did not take, in load order.
    let teardowns = branch.state.withLock { $0.teardowns.takeAll() }
    var failures: [TeardownFailed.Failure] = []
    for teardown in teardowns.reversed() {
      if let failure = await teardown.run(in: branch) { failures.append(failure) }
    }
    branch.definition.observer?.branchClosed(BranchEvent(branchPath: branch.path, time: .now))
    return failures
  }
}
