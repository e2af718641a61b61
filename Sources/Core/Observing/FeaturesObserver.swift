/// Told of what a features tree does: every load, every branch made and closed, every teardown
/// and renewal.
///
/// Give one to ``FeaturesRoot(observer:clock:file:line:_:)``; it sees the whole tree. Without one,
/// nothing is recorded and a cached read is unchanged: a load pays one predictable branch.
/// ``LoadProfile`` is a ready observer. Methods are called on the thread or task that did the
/// work, possibly many at once, so an observer must be cheap and safe under concurrency; every
/// method has an empty default.
///
/// ```swift
/// final class SlowLoads: FeaturesObserver {
///   func loaded(_ load: LoadEvent) {
///     if load.duration > .milliseconds(100) { print("slow: \(load.implementation) took \(load.duration)") }
///   }
/// }
/// let root = FeaturesRoot(observer: SlowLoads()) { registry in ... }
/// ```
public protocol FeaturesObserver: AnyObject, Sendable {
  /// A loader ran: what it loaded, where, for whom, how long it took, and how it ended.
  func loaded(_ load: LoadEvent)
  /// A branch was made.
  func branchCreated(_ branch: BranchEvent)
  /// A branch closed: its teardowns, and those of the branches below it, ran.
  func branchClosed(_ branch: BranchEvent)
  /// A teardown ran as its branch closed: what it tore down, where, how long it took, how it ended.
  func tornDown(_ teardown: TeardownEvent)
  /// A branch's start ended: its eager loads and before-serving work, in the order each began.
  func started(_ start: StartEvent)
  /// A renewal ended: a refresh, or an instance that expired, and every instance renewed with it.
  func renewed(_ renewal: RenewalEvent)
}

extension FeaturesObserver {
  /// Does nothing.
  public func loaded(_ load: LoadEvent) {}
  /// Does nothing.
  public func branchCreated(_ branch: BranchEvent) {}
  /// Does nothing.
  public func branchClosed(_ branch: BranchEvent) {}
  /// Does nothing.
  public func tornDown(_ teardown: TeardownEvent) {}
  /// Does nothing.
  public func started(_ start: StartEvent) {}
  /// Does nothing.
  public func renewed(_ renewal: RenewalEvent) {}
}
