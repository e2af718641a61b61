/// A multiton of any feature, as a closing branch sees it: the loads in flight it must wait for.
protocol MultitonLoads: AnyObject {
  /// The loads of contexts in progress now.
  var loadsInFlight: [InFlight] { get }
}

extension Multiton: MultitonLoads {
  var loadsInFlight: [InFlight] { lock.withLock { Array($0.inFlight.values) } }
}
