/// One use of a keyed branch: what ``KeyedBranches/withBranch(for:file:line:isolation:_:)`` holds
/// while its body runs, and gives back when the body ends.
///
/// Taken without suspending; a lease that is not ``isReady`` must first close the branches its
/// request evicted, or wait for its branch to be made.
@usableFromInline
struct KeyedBranchesLease: Sendable {
  /// The branch, once it is made.
  @usableFromInline var branch: Features?
  /// The set's entry of the key's branch this lease uses: a key's branch closed and made again
  /// is another entry.
  let entry: KeyedBranchesState.KeyedBranch
  /// The branch's making, when this request found it being made or started it.
  var opening: KeyedBranchesState.Making?
  /// Branches this request evicted, to be closed before its body runs.
  @usableFromInline var evicted: [Features]

  init(_ lease: KeyedBranchesState.Lease, evicted: [Features]) {
    self.evicted = evicted
    switch lease {
    case .open(let branch, let entry):
      self.branch = branch
      self.entry = entry
    case .opening(let making, let entry):
      opening = making
      self.entry = entry
    }
  }

  /// Whether the body can run now, with nothing to close or wait for.
  @inlinable var isReady: Bool { branch != nil && evicted.isEmpty }
}
