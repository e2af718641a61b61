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

  /// Runs this step: each child (with its own children first), then the branch itself.
  func run() async -> [TeardownFailed.Failure] {
    var failures: [TeardownFailed.Failure] = []
    for child in children {
      failures += await child.run()
      child.branch.anchor.borrow { $0.release() }
    }
    guard runsTeardowns else {
      _ = await branch.outcomeOfClose()
      return []
    }
    failures += await tearDown()
    branch.finishClose(with: failures)
    return failures
  }

  /// Waits for the loads in flight in the branch, then runs the teardowns of the instances cached
  /// there, newest first. A teardown that throws does not stop the others.
  private func tearDown() async -> [TeardownFailed.Failure] {
    await branch.waitForLoadsInFlight()
    // Instances renewals forgot here are theirs to tear down; the close ends after them.
    await waitForTeardownsOfRenewals()
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

  /// Waits until the renewals that forgot instances in the branch have run their teardowns,
  /// unless the task runs those teardowns itself (one of them closes the branch).
  private func waitForTeardownsOfRenewals() async {
    guard let state = branch.existingState, !TreeRenewals.tearsDown(in: branch) else { return }
    await state.suspend(until: { $0.held.teardownsOfRenewals == 0 }, waitingIn: \.held.closesWaitingForRenewals)
  }
}

/// What is left of a close once ``Branch/startClose(at:)`` has marked the branch closed: awaited
/// with ``complete(closing:at:isolation:)``.
@usableFromInline
enum CloseRemainder: Sendable {
  /// Another close was first: wait for its outcome.
  case outcomeOfEarlierClose
  /// The branch's descendants, then its own teardowns.
  case run(CloseStep)

  /// Ends the close of `branch` that ``Branch/startClose(at:)`` began. The caller keeps the
  /// branch alive meanwhile.
  ///
  /// - Parameter isolation: The caller's actor: the close goes on there.
  /// - Throws: ``TeardownFailed`` listing every teardown that threw, for the caller that started
  ///   the close and every caller waiting for it.
  @usableFromInline
  func complete(closing branch: Branch, at site: SourceLocation, isolation: isolated (any Actor)?) async throws {
    let failures: [TeardownFailed.Failure]
    switch self {
    case .outcomeOfEarlierClose:
      failures = await branch.outcomeOfClose()
    case .run(let plan):
      // A task of its own, which nobody cancels: a teardown never starts cancelled, even when the
      // caller's task is cancelled before or during the close.
      let closing = ClosesInTask(plan, enclosing: ClosesInTask.current)
      // Called from inside a load this close waits for (an async loader closing its own branch, or
      // an ancestor), waiting would never end: the close goes on in its task, and ends when the
      // load does. No caller then gets its outcome, so a teardown that throws is reported.
      let isWaitedFor = !closing.waitsForTheCurrentTask()
      let task = Task {
        let failures = await ClosesInTask.$current.withValue(closing) {
          // Not waited for, the close is part of no load of the caller's: its requests and closes
          // must not take the caller's loads for theirs.
          guard !isWaitedFor else { return await plan.run() }
          return await AsyncFrame.$current.withValue(nil) {
            await ClosesInTask.$outsideLoads.withValue([]) { await plan.run() }
          }
        }
        closing.ended()
        if !isWaitedFor, !failures.isEmpty {
          IssueReporting.report(
            Diagnostic(describing: TeardownFailed(failures, closing: branch.path, at: site)), severity: .failure)
        }
        return failures
      }
      guard isWaitedFor else { return }
      failures = await task.value
    }
    if !failures.isEmpty { throw TeardownFailed(failures, closing: branch.path, at: site) }
  }
}
