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
  /// Inside lifecycle work (``LifecycleWork``) it returns at once: the close goes on in its task,
  /// and its failures are reported through ``IssueReporting``, as a dropped branch's are.
  ///
  /// - Parameter isolation: The caller's actor: the close goes on there.
  /// - Throws: ``TeardownFailed`` listing every teardown that threw, for the caller that started
  ///   the close and every caller waiting for it.
  @usableFromInline
  func complete(closing branch: Branch, at site: SourceLocation, isolation: isolated (any Actor)?) async throws {
    let isAwaited = LifecycleWork.running == nil
    let failures: [TeardownFailed.Failure]
    switch self {
    case .outcomeOfEarlierClose:
      guard isAwaited else { return }
      failures = await Self.outcomeOfFirstClose(of: branch)
    case .run(let plan):
      // A task of its own, which nobody cancels: a teardown never starts cancelled, even when the
      // caller's task is cancelled before or during the close.
      let task = LifecycleWork.detachedFromLoads {
        let failures = await plan.run()
        if !isAwaited, !failures.isEmpty {
          IssueReporting.report(
            Diagnostic(describing: TeardownFailed(failures, closing: branch.path, at: site)), severity: .failure)
        }
        return failures
      }
      guard isAwaited else { return }
      failures = await task.value
    }
    if !failures.isEmpty { throw TeardownFailed(failures, closing: branch.path, at: site) }
  }

  /// The outcome of the close of `branch` that started first, once it ended.
  static func outcomeOfFirstClose(of branch: Branch) async -> [TeardownFailed.Failure] {
    await withCheckedContinuation { continuation in
      let ready = branch.state.withLock { state -> [TeardownFailed.Failure]? in
        switch state.lifecycle.waitForOutcome(continuation) {
        case .suspend: return nil
        case .resume(let failures): return failures
        }
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
