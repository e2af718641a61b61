import Synchronization

// What a close needs of a branch. `State.lifecycle` (a ``BranchLifecycle``) owns the state; the
// closed bit of `slowPathFlags` mirrors it for the inlined reads, set only by `mirrorClosed()`.
extension Branch {
  /// Whether `close()` started on this branch or an ancestor. Never unset.
  @inlinable package var isClosed: Bool { slowPathFlags.load(ordering: .sequentiallyConsistent) & Self.closedBit != 0 }

  /// This branch, or the root of a test container's copy of a tree made at this branch.
  @usableFromInline var closeTarget: Branch {
    overrides?.closesCopiedAncestors(of: self) == true ? root : self
  }

  /// Adds `child`, a new branch, to the children; one made while this branch closes is closed.
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

  /// The anchor whose list of children this branch is in: the parent's while this branch holds it;
  /// otherwise the tether (the parent's anchor, kept by this branch), which outlives the parent.
  private var parentAnchor: UncountedReference<BranchAnchor>? {
    guard let parentReference else { return nil }
    guard holdsParent else { return tether.map { UncountedReference($0) } }
    return parentReference.borrow { $0.anchor }
  }

  /// From deinit. A parent this branch does not hold may be gone, having unlinked it already.
  func leaveParent() {
    parentAnchor?.borrow { anchor in
      anchor.withChildren {
        if isLinked { anchor.removeChild(self) }
      }
    }
  }

  /// From deinit: lets go of the children still linked, and reports the teardowns never run.
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

  /// Below a tether, makes the path now, while the ancestors are certainly alive: a report of
  /// skipped teardowns, from deinit, may no longer reach them.
  func makePathIfTethered() {
    if isTethered { _ = path }
  }

  /// The inlined reads take the slow way from now on.
  func mirrorClosed() {
    slowPathFlags.bitwiseOr(Self.closedBit, ordering: .sequentiallyConsistent)
  }

  func loadsInFlight() -> [any LoadInFlight] {
    units.trackClaimedLoads(in: state)
    return existingState?.withLock { $0.loads.inFlight } ?? []
  }

  /// The load of `key` in flight here, if any: what a refresh of an instance not cached yet waits for.
  func loadInFlight(of key: LoadKey) -> (any LoadInFlight)? {
    units.trackClaimedLoads(in: state)
    return existingState?.withLock { $0.loads.inFlight(of: key) }
  }

  /// Ends the close with its outcome for every caller, unless `onlyIfNothingToTearDown` and, under
  /// the lock those are recorded under, something is owed, loading or torn down by a renewal here.
  @discardableResult
  func finishClose(with failures: [TeardownFailed.Failure], onlyIfNothingToTearDown: Bool = false) -> Bool {
    let waiters = state.withLock { state -> [CheckedContinuation<[TeardownFailed.Failure], Never>]? in
      let hasWork = !state.teardowns.isEmpty || !state.loads.isIdle || state.teardowns.runningForRenewals != 0
      if onlyIfNothingToTearDown, hasWork { return nil }
      return state.lifecycle.finishClose(with: failures)
    }
    guard let waiters else { return false }
    for waiter in waiters { waiter.resume(returning: failures) }
    return true
  }
}
