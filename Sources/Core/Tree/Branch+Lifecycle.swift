import Synchronization

// Closing a branch: the children a close must reach, the instances it tears down, and the state
// that says a branch is closed. `State.lifecycle` (a ``BranchLifecycle``) owns that state; the
// closed bit of `slowPathFlags` mirrors it for the inlined reads, set only by `mirrorClosed()` when an
// event of the lifecycle leaves `open`.
extension Branch {
  /// Whether `close()` started on this branch or an ancestor: from then on every request, branch
  /// and context lookup through it (or a branch below it) throws ``FeaturesClosed``, a property
  /// read, set or observe reports it, and the branch's property streams have ended. Never unset.
  @inlinable package var isClosed: Bool { slowPathFlags.load(ordering: .sequentiallyConsistent) & Self.closedBit != 0 }

  /// The error of a request for `feature` through this branch once it is closed.
  @usableFromInline
  func closed<F: Feature>(resolving feature: F.Type, at location: SourceLocation) -> any Error {
    closed(.resolving(feature), at: location)
  }

  /// The error of a request through this branch once it is closed: what was asked, where, and
  /// which branch was closed, at which site.
  package func closed(_ request: FeaturesClosed.Request, at location: SourceLocation) -> FeaturesClosed {
    var branch: Branch? = self
    while let current = branch {
      if let closer = current.state.withLock({ $0.lifecycle.closer }) {
        var closedPath: ScopePath? = current.path
        for _ in 0..<closer.levelsUp { closedPath = closedPath?.parent }
        return FeaturesClosed(request, in: self, closed: closedPath, at: closer.site, requestedAt: location)
      }
      // Closed as it was made, under a closing parent: the parent says who closed it.
      branch = current.parent
    }
    return FeaturesClosed(request, in: self, closed: nil, at: nil, requestedAt: location)
  }

  /// The branch a `close()` of this one closes: this one, or the root of a test container's copy
  /// of a tree when this is the branch the copy was made at.
  @usableFromInline var closeTarget: Branch {
    overrides?.closesCopiedAncestors(of: self) == true ? root : self
  }

  // MARK: Children

  /// Adds `child`, a new branch, to this branch's children, so that closing this one closes it
  /// first; a child made while this branch closes is closed at once (its maker then throws).
  func link(_ child: Branch) {
    anchor.borrow { anchor in
      anchor.withChildren {
        // Under the lock that `markClosed` sets the bit under.
        guard !isClosed else {
          child.state.withLock { $0.lifecycle.madeUnderClosingParent() }
          child.mirrorClosed()
          return
        }
        anchor.insertChild(child)
      }
    }
  }

  /// The anchor of the parent, whose list of children this branch is in: the parent's own while
  /// this branch holds it; otherwise the tether, which this branch keeps (made through the parent's
  /// loader features, it is the parent's anchor), and which outlives the parent.
  private var parentAnchor: UncountedReference<BranchAnchor>? {
    guard let parentReference else { return nil }
    guard holdsParent else { return tether.map { UncountedReference($0) } }
    return parentReference.borrow { $0.anchor }
  }

  /// Leaves the parent's list of children: from deinit. The parent may be gone already when this
  /// branch does not hold it; it then unlinked this branch as it went.
  func leaveParent() {
    parentAnchor?.borrow { anchor in
      anchor.withChildren {
        if isLinked { anchor.removeChild(self) }
      }
    }
  }

  /// From deinit: lets go of the children still linked (only branches that do not hold this one
  /// can outlive it), and reports the teardowns that never ran.
  func endLifecycle() {
    anchor.borrow { anchor in
      guard anchor.hasChildren else { return }
      anchor.withChildren { anchor.removeAllChildren() }
    }
    guard hasRecordedTeardowns else { return }
    let skipped = state.withLock { $0.teardowns }
    guard !skipped.isEmpty else { return }
    let error = TeardownSkipped(skipped, in: isTethered ? pathIfMade : path)
    IssueReporting.report(error.diagnostic, severity: .failure, at: skipped.first?.registration.location)
  }

  // MARK: Recording teardowns

  /// Records an instance just cached here in its unit whose loader has a teardown, before its load
  /// ends.
  @usableFromInline
  func recordTeardown<F: Feature>(_ instance: F, entry: FeatureTable.EntryReference) {
    recordTeardown(PendingTeardown(of: instance, context: nil, binding: entry.binding.object))
  }

  /// Records an instance to tear down when this branch closes: a loaded one, or one a test
  /// container's `load` made.
  func recordTeardown(_ teardown: PendingTeardown) {
    makePathIfTethered()
    state.withLock { record(teardown, in: &$0) }
  }

  /// Records `teardown` in `state`, this branch's, under its lock: call ``makePathIfTethered()``
  /// first.
  func record(_ teardown: PendingTeardown, in state: inout State) {
    state.teardowns.append(teardown)
    hasRecordedTeardowns = true
  }

  /// Below a tether, makes the path now, while the branch's ancestors are certainly alive: a report
  /// of skipped teardowns, from deinit, may no longer reach them. Other branches hold their
  /// ancestors until their deinit ends.
  func makePathIfTethered() {
    if isTethered { _ = path }
  }

  // MARK: Closing

  /// Starts closing this branch: marks it and every open descendant closed. A branch with nothing
  /// below it, nothing loading and nothing to tear down (a request's branch, most often) is closed
  /// when this returns, with no plan, no task and no suspension.
  ///
  /// - Returns: `nil` when the close has ended; otherwise what is left of it, for
  ///   ``CloseRemainder/complete(closing:at:isolation:)``: its open descendants first, each after its own
  ///   descendants, then its own instances, newest first, once the loads in flight ended. A second
  ///   close (or a close of a branch an ancestor's close reached) waits for the first one's outcome.
  @usableFromInline
  func startClose(at site: SourceLocation) -> CloseRemainder? {
    guard let children = markClosed(at: site, levelsUp: 0, collecting: true) else { return .outcomeOfEarlierClose }
    if children.isEmpty {
      // A unit's load in flight is tracked now, so that the table tells the quiet close of it.
      trackUnitLoads()
      if finishClose(with: [], onlyIfNothingToTearDown: true) {
        definition.observer?.branchClosed(BranchEvent(branchPath: path, time: .now))
        return nil
      }
    }
    return .run(CloseStep(branch: self, runsTeardowns: true, children: children))
  }

  /// Marks this branch and every descendant that is not closed yet as closed, under their locks,
  /// parent before child: from here on no request, load or branch starts through them.
  ///
  /// - Parameter collecting: Whether to hold the descendants and return their steps; `false` for
  ///   a branch that is being released (its descendants are marked, and held by nobody).
  /// - Returns: The steps of the children this close holds (none when not `collecting`); `nil`
  ///   when the branch was closed already.
  private func markClosed(at site: SourceLocation, levelsUp: Int, collecting: Bool) -> [CloseStep]? {
    anchor.borrow { anchor in
      anchor.withChildren {
        let start = state.withLock { $0.lifecycle.startClose(.init(site: site, levelsUp: levelsUp)) }
        guard start == .run else { return nil }
        mirrorClosed()
        // Property streams end with the branch: an `observe` made from now on is refused.
        existingProperties?.finishObservers()
        var steps: [CloseStep] = []
        anchor.forEachChild { child in
          // A child without holders is being released, or not handed out yet: it is marked (a new
          // one then fails to be made) but holds nothing a close could reach. This lock keeps it
          // from being freed meanwhile: its deinit first leaves this list.
          let held = collecting ? child.anchor.borrow { $0.holdIfAlive() } : nil
          if let grandchildren = child.markClosed(at: site, levelsUp: levelsUp + 1, collecting: held != nil) {
            if let held { steps.append(CloseStep(branch: held, runsTeardowns: true, children: grandchildren)) }
          } else if let held {
            steps.append(CloseStep(branch: held, runsTeardowns: false, children: []))
          }
        }
        return steps
      }
    }
  }

  /// Sets the closed bit of `slowPathFlags` once the lifecycle left `open`: from then on the inlined reads
  /// take the slow way, which throws ``FeaturesClosed``.
  private func mirrorClosed() {
    slowPathFlags.bitwiseOr(Self.closedBit, ordering: .sequentiallyConsistent)
  }

  /// Waits until no load is in flight here: none can start any more, since the branch is marked
  /// closed, and each that was claimed before ends (and records its teardown) first.
  func waitForLoadsInFlight() async {
    for load in loadsInFlight() { await load.ended() }
  }

  /// The loads in flight here, each waited for as a request waits, so that it hands its outcome
  /// over when it ends.
  func loadsInFlight() -> [any LoadInFlight] {
    trackUnitLoads()
    return existingState?.withLock { $0.loads.inFlight } ?? []
  }

  /// Has the ``LoadTable`` track every load in flight here that claimed a unit (a cacheable
  /// without a context, loaded in place) and that nobody waits for yet.
  func trackUnitLoads() {
    units.forEach { _, shape, unit in
      guard let instance = shape.instance, unit.state.isClaimed else { return }
      _ = unit.state.inFlight(instance.feature, tracking: state)
    }
  }

  /// Ends the close of this branch with its outcome, for every caller waiting for it.
  ///
  /// - Parameter onlyIfNothingToTearDown: Whether to end it only when no teardown is recorded and
  ///   no async load or load of a held instance is in flight, and no renewal's teardown of an
  ///   instance forgotten here is left, checked under the lock they are recorded under.
  /// - Returns: Whether the close ended.
  @discardableResult
  func finishClose(with failures: [TeardownFailed.Failure], onlyIfNothingToTearDown: Bool = false) -> Bool {
    let waiters = state.withLock { state -> [CheckedContinuation<[TeardownFailed.Failure], Never>]? in
      if onlyIfNothingToTearDown,
        !state.teardowns.isEmpty || !state.loads.isIdle
          || state.held.teardownsOfRenewals != 0
      {
        return nil
      }
      return state.lifecycle.finishClose(with: failures)
    }
    guard let waiters else { return false }
    for waiter in waiters { waiter.resume(returning: failures) }
    return true
  }

  /// The outcome of the close that started first, once it ended; at once while that close waits
  /// for the current task: for a close the task runs (a teardown closing its own branch again, or
  /// an ancestor), or for a load the task runs inside (an async loader closing its own branch, or
  /// an ancestor, as it closes). That close cannot end before this returns, and its own caller gets
  /// its outcome.
  func outcomeOfClose() async -> [TeardownFailed.Failure] {
    // Read before the lock: a close the task runs ends only after this returns, and one that ended
    // left this branch closed, which the lifecycle answers first.
    let isPartOfTheClose =
      ClosesInTask.current?.contains(self) == true || ClosesInTask.currentTaskLoads(below: self)
      || TreeRenewals.tearsDown(in: self)
    return await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> [TeardownFailed.Failure]? in
        if isPartOfTheClose, !state.lifecycle.hasEnded { return [] }
        switch state.lifecycle.waitForOutcome(continuation) {
        case .suspend: return nil
        case .resume(let failures): return failures
        }
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
