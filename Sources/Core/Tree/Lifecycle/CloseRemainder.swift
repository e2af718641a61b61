/// What is left of a close once it marked the branch closed: what ``complete(closing:at:isolation:)`` awaits.
@usableFromInline
enum CloseRemainder: Sendable {
  case outcomeOfEarlierClose
  case run(CloseStep)

  /// Marks `branch` and its descendants closed. `nil` when the close ended already: a branch with
  /// nothing below, loading or to tear down (a request's, most often) needs no task or suspension.
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

  /// Throws ``TeardownFailed`` listing every teardown that threw, to every caller of the close;
  /// inside lifecycle work it returns at once and the failures are reported, as a dropped branch's.
  @usableFromInline
  func complete(closing branch: Branch, at site: SourceLocation, isolation: isolated (any Actor)?) async throws {
    let isAwaited = LifecycleWork.running == nil
    let failures: [TeardownFailed.Failure]
    switch self {
    case .outcomeOfEarlierClose:
      guard isAwaited else { return }
      failures = await Self.outcomeOfFirstClose(of: branch)
    case .run(let plan):
      // A task nobody cancels: a teardown never starts cancelled, even when the caller is.
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
      let action = branch.state.withLock { $0.lifecycle.waitForOutcome(continuation) }
      if case .resume(let failures) = action { continuation.resume(returning: failures) }
    }
  }
}
