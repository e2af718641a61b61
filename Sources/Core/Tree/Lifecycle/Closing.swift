/// How a branch is closing: who asked, and the outcome once its teardowns ran. Kept in the
/// branch's `state` from the moment it starts closing (see ``Branch/isClosed``).
struct Closing {
  /// Where `close()` was called.
  let site: SourceLocation
  /// How many levels up from this branch the branch whose `close()` was called is: 0 for that
  /// branch, more for the descendants it closed with it.
  let levelsUp: Int
  /// The failed teardowns of this branch and of the descendants its close tore down, once they all
  /// ran; `nil` until then.
  var failures: [TeardownFailed.Failure]?
  /// Callers of `close()` suspended until then.
  var waiters: [CheckedContinuation<[TeardownFailed.Failure], Never>] = []

  init(site: SourceLocation, levelsUp: Int) {
    self.site = site
    self.levelsUp = levelsUp
  }
}
