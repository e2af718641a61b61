/// A close, from its start to its end: ``start(closing:at:)`` marks the branch closed and returns
/// what is left of the close, if anything, which ``complete(closing:at:isolation:)`` awaits.
@usableFromInline
enum CloseRemainder: Sendable {
  /// Another close was first: wait for its outcome.
  case outcomeOfEarlierClose
  /// The branch's descendants, then its own teardowns.
  case run(CloseStep)

  /// Starts closing `branch`: marks it and every open descendant closed. A branch with nothing
  /// below it, nothing loading and nothing to tear down (a request's branch, most often) is closed
  /// when this returns, with no plan, no task and no suspension.
  ///
  /// - Returns: `nil` when the close has ended; otherwise what is left of it: its open descendants
  ///   first, each after its own descendants, then its own instances, newest first, once the loads
  ///   in flight ended. A second close (or a close of a branch an ancestor's close reached) waits
  ///   for the first one's outcome.
  @usableFromInline
  static func start(closing branch: Branch, at site: SourceLocation) -> CloseRemainder? {
    guard let children = CloseStep.markClosed(branch, at: site, levelsUp: 0, collecting: true) else {
      return .outcomeOfEarlierClose
    }
    if children.isEmpty {
      // A unit's load in flight is tracked now, so that the table tells the quiet close of it.
      branch.units.trackClaimedLoads(in: branch.state)
      if branch.finishClose(with: [], onlyIfNothingToTearDown: true) {
        branch.definition.observer?.branchClosed(BranchEvent(branchPath: branch.path, time: .now))
        return nil
      }
    }
    return .run(CloseStep(branch: branch, runsTeardowns: true, children: children))
  }

  /// Ends the close of `branch` that ``start(closing:at:)`` began. The caller keeps the
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
      failures = await Self.outcomeOfFirstClose(of: branch)
    case .run(let plan):
      // A task of its own, which nobody cancels: a teardown never starts cancelled, even when the
      // caller's task is cancelled before or during the close.
      let enclosing = ClosesInTask.current
      let closing = ClosesInTask(plan, enclosing: enclosing)
      // Called from inside a load this close waits for (an async loader closing its own branch, or
      // an ancestor), waiting would never end: the close goes on in its task, and ends when the
      // load does. No caller then gets its outcome, so a teardown that throws is reported.
      let isWaitedFor = !closing.waitsForTheCurrentTask()
      // The close, renewal or start the caller runs, if any, waits for this one, as a wait for an
      // earlier close does: recorded before this one starts, when no close can wait for it yet, so
      // that a loop through it is found by the close whose wait closes it.
      let wait = isWaitedFor ? ClosesInTask.OutcomeWait(of: ClosesInTask.waitingAs, for: branch) : nil
      let task = Task {
        let failures = await ClosesInTask.with(closing) {
          // Not waited for, the close is part of no load of the caller's: its requests and closes
          // must not take the caller's loads for theirs.
          guard !isWaitedFor else { return await plan.run(of: closing) }
          return await AsyncFrame.$current.withValue(nil) {
            await ClosesInTask.$outsideLoads.withValue([]) { await plan.run(of: closing) }
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
      wait?.end()
    }
    if !failures.isEmpty { throw TeardownFailed(failures, closing: branch.path, at: site) }
  }

  /// The outcome of the close of `branch` that started first, once it ended; at once while that
  /// close waits for the current task: for a close the task runs (a teardown closing its own
  /// branch again, or an ancestor), or for a load the task runs inside (an async loader closing its
  /// own branch, or an ancestor, as it closes), or through other closes that wait for the one the
  /// task runs (two sessions whose teardowns close each other). That close cannot end before this
  /// returns, and its own caller gets its outcome.
  static func outcomeOfFirstClose(of branch: Branch) async -> [TeardownFailed.Failure] {
    // Read before the lock: a close the task runs ends only after this returns, and one that ended
    // left the branch closed, which the lifecycle answers first.
    let current = ClosesInTask.current
    let isPartOfTheClose =
      current?.contains(branch) == true || ClosesInTask.currentTaskLoads(below: branch)
    // Only a wait that may block is recorded: one for a close the task is part of returns at once.
    let wait = isPartOfTheClose ? nil : ClosesInTask.OutcomeWait(of: ClosesInTask.waitingAs, for: branch)
    defer { wait?.end() }
    return await withCheckedContinuation { continuation in
      let ready = branch.state.withLock { state -> [TeardownFailed.Failure]? in
        if isPartOfTheClose || wait?.closesALoop == true, !state.lifecycle.hasEnded { return [] }
        switch state.lifecycle.waitForOutcome(continuation) {
        case .suspend: return nil
        case .resume(let failures): return failures
        }
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
