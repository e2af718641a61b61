import Synchronization

// What a close needs of a branch: the children it must reach, the closed bit, the loads it waits
// for, and the end of the branch's close. `State.lifecycle` (a ``BranchLifecycle``) owns that state; the
// closed bit of `slowPathFlags` mirrors it for the inlined reads, set only by `mirrorClosed()` when an
// event of the lifecycle leaves `open`.
extension Branch {
  /// Whether `close()` started on this branch or an ancestor: from then on every request, branch
  /// and context lookup through it (or a branch below it) throws ``FeaturesClosed``, a property
  /// read, set or observe reports it, and the branch's property streams have ended. Never unset.
  @inlinable package var isClosed: Bool { slowPathFlags.load(ordering: .sequentiallyConsistent) & Self.closedBit != 0 }

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
        // Under the lock that `CloseStep.markClosed` sets the bit under.
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
    let skipped = state.withLock { $0.teardowns.all }
    guard !skipped.isEmpty else { return }
    let error = TeardownSkipped(skipped, in: isTethered ? pathIfMade : path)
    IssueReporting.report(error.diagnostic, severity: .failure, at: skipped.first?.registration.location)
  }

  // MARK: Teardowns

  /// Below a tether, makes the path now, while the branch's ancestors are certainly alive: a report
  /// of skipped teardowns, from deinit, may no longer reach them. Other branches hold their
  /// ancestors until their deinit ends.
  func makePathIfTethered() {
    if isTethered { _ = path }
  }

  // MARK: Closing

  /// Sets the closed bit of `slowPathFlags` once the lifecycle left `open`: from then on the inlined reads
  /// take the slow way, which throws ``FeaturesClosed``.
  func mirrorClosed() {
    slowPathFlags.bitwiseOr(Self.closedBit, ordering: .sequentiallyConsistent)
  }

  /// The loads in flight here, each waited for as a request waits, so that it hands its outcome
  /// over when it ends.
  func loadsInFlight() -> [any LoadInFlight] {
    units.trackClaimedLoads(in: state)
    return existingState?.withLock { $0.loads.inFlight } ?? []
  }

  /// The load of `key` in flight here, if any, waited for as a request waits: what a refresh of an
  /// instance not cached yet waits for.
  func loadInFlight(of key: LoadKey) -> (any LoadInFlight)? {
    units.trackClaimedLoads(in: state)
    return existingState?.withLock { $0.loads.inFlight(of: key) }
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
          || state.teardowns.runningForRenewals != 0
      {
        return nil
      }
      return state.lifecycle.finishClose(with: failures)
    }
    guard let waiters else { return false }
    for waiter in waiters { waiter.resume(returning: failures) }
    return true
  }
}
