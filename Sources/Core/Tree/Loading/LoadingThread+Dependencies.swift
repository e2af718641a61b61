/// An instance a cacheable's load received from a request it made: renewing that instance renews
/// the load's too.
@usableFromInline
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
  /// The number its teardown is owed under in its branch (``OwedTeardowns``), if it has one.
  let teardown: Int?
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

/// What a run of a loader hands back (``LoadingThread/runLoader(on:_:context:entry:in:at:)``): the
/// instance and, for a cacheable, the cached instances its loader received, for its branch to
/// record as it caches the instance.
@usableFromInline
struct Loaded<F> {
  @usableFromInline let instance: F
  /// Empty for a disposable, which nothing renews.
  @usableFromInline let received: [Dependency]

  @inlinable @inline(__always)
  init(_ instance: F, received: [Dependency]) {
    self.instance = instance
    self.received = received
  }
}

extension LoadingThread {
  /// Starts a cacheable's run of its loader on this path: from now on, the requests made on this
  /// thread record the cached instances they receive, until ``endCachingLoad(from:)`` or
  /// ``dropCachingLoad(from:)``.
  ///
  /// - Returns: Where the run's records start.
  @inlinable @inline(__always)
  func beginCachingLoad() -> Int {
    cachingLoads &+= 1
    return dependencyCount
  }

  /// Ends the innermost cacheable run on this path, whose loader returned.
  ///
  /// - Returns: The cached instances it received, taken off the path.
  @inlinable @inline(__always)
  func endCachingLoad(from start: Int) -> [Dependency] {
    cachingLoads &-= 1
    return dependencyCount == start ? [] : takeDependencies(from: start)
  }

  /// Takes the records from `start` off the path: what a cacheable run received.
  @usableFromInline
  func takeDependencies(from start: Int) -> [Dependency] {
    let taken = Array(dependencies[start...])
    dependencies.removeSubrange(start...)
    dependencyCount = start
    return taken
  }

  /// Ends the innermost cacheable run on this path, whose loader threw: what it received is dropped.
  @usableFromInline
  func dropCachingLoad(from start: Int) {
    _ = endCachingLoad(from: start)
  }

  /// Records that the innermost cacheable run on this path received `dependency`: as received
  /// after a renewal this path's own request made (``renewedByRequest``), if it is of that
  /// instance.
  ///
  /// - Returns: Whether a cacheable run on this path took it; when none runs here, the caller
  ///   looks for an async one.
  func record(_ dependency: Dependency) -> Bool {
    guard cachingLoads > 0 else { return false }
    dependencies.append(renewedByRequest?.adjusting(dependency) ?? dependency)
    dependencyCount += 1
    return true
  }

  /// Records that the cacheable load running on this thread, or in this task, received the
  /// instance of `feature` for `context` from a request through `branch`, its loader's features.
  ///
  /// - Parameter epoch: ``TreeRenewals/epoch`` as read before the request.
  @usableFromInline
  func recordReceived<F: Feature>(_ feature: F.Type, context: F.Context, through branch: Branch, epoch: UInt64) {
    let asyncLoad = cachingLoads == 0 ? AsyncFrame.currentIfAny?.load : nil
    guard cachingLoads != 0 || asyncLoad != nil,
      let entry = branch.table.entry(for: FeatureTable.key(feature)), entry.keeping.isCached
    else { return }
    let owner = branch.ancestor(entry.depth)
    let key = LoadKey(feature, context: context)
    let dependency = Dependency(instance: CachedInstance(branch: ObjectIdentifier(owner), key: key), epoch: epoch)
    if !record(dependency) { _ = asyncLoad?.record(dependency) }
  }
}
