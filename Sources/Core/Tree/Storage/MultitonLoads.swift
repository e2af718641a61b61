/// A multiton of any feature, as a closing branch sees it: the loads in flight it must wait for.
protocol MultitonLoads: AnyObject {
  /// The loads of contexts in progress now.
  var loadsInFlight: [InFlight] { get }
}

extension Multiton: MultitonLoads {
  var loadsInFlight: [InFlight] { lock.withLock { Array($0.inFlight.values) } }
}

/// A multiton of any feature, as a renewal sees it.
protocol RenewableMultiton: AnyObject {
  /// Takes the entry of `context` out of the lock-free table, if it is there, and runs `body` with
  /// whether it was, under the multiton's lock.
  func retire<R>(_ context: ContextKey, _ body: (Bool) -> R) -> R
}

extension Multiton: RenewableMultiton {}
