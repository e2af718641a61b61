/// An instance a cacheable's load received from a request it made: renewing that instance renews
/// the load's too.
struct Dependency: Hashable, Sendable {
  /// The instance: the branch that caches it, and its key there.
  let instance: CachedInstance
  /// The renewal epoch (``TreeRenewals/epoch``) read before the request: a renewal pass that ended
  /// after it may have forgotten the instance the request received.
  let epoch: UInt64
}

/// Where a cached instance is: the branch that caches it, and its key there.
struct CachedInstance: Hashable, Sendable {
  let branch: ObjectIdentifier
  let key: LoadKey
}

/// A cached instance whose load received others: what a renewal of one of those looks for.
struct LoadRecord: Sendable {
  let key: LoadKey
  let dependencies: [Dependency]
}

/// An instance a request found expired and renewed itself, and the epoch of the renewal's first
/// pass: the request then received the new instance.
struct RenewedByRequest: Sendable {
  let instance: CachedInstance
  let epoch: UInt64

  /// `dependency`, taken as received after this renewal if it is of the renewed instance.
  func adjusting(_ dependency: Dependency) -> Dependency {
    guard dependency.instance == instance else { return dependency }
    return Dependency(instance: instance, epoch: max(epoch, dependency.epoch))
  }
}
