extension LoadingThread {
  /// Starts a cacheable's load on this path: from now on, the requests made on this thread record
  /// the cached instances they receive, until ``endCachingLoad(from:)``.
  ///
  /// - Returns: Where the load's records start, for ``endCachingLoad(from:)``.
  @inlinable @inline(__always)
  func beginCachingLoad() -> Int {
    cachingLoads &+= 1
    return dependencyCount
  }

  /// Ends the innermost cacheable load on this path, whatever its outcome.
  ///
  /// - Returns: Whether it received cached instances: take them with ``takeDependencies(from:)``.
  @inlinable @inline(__always)
  func endCachingLoad(from start: Int) -> Bool {
    cachingLoads &-= 1
    return dependencyCount != start
  }

  /// Drops what a load whose records start at `start` received: it failed.
  @usableFromInline
  func dropDependencies(from start: Int) {
    _ = takeDependencies(from: start)
  }

  /// The instances the load whose records start at `start` received, taken off the path.
  func takeDependencies(from start: Int) -> [Dependency] {
    let taken = Array(dependencies[start...])
    dependencies.removeSubrange(start...)
    dependencyCount = start
    return taken
  }

  /// Records that the innermost cacheable load on this path received `dependency`: as received
  /// after a renewal this path's own request made (``renewedByRequest``), if it is of that
  /// instance.
  ///
  /// - Returns: Whether a cacheable load on this path took it; when none runs here, the caller
  ///   looks for an async one.
  func record(_ dependency: Dependency) -> Bool {
    guard cachingLoads > 0 else { return false }
    dependencies.append(renewedByRequest?.adjusting(dependency) ?? dependency)
    dependencyCount += 1
    return true
  }

  /// Runs `load`, a cacheable's loader, collecting the cached instances its requests receive.
  func caching<F>(_ load: () throws -> F) rethrows -> (F, [Dependency]) {
    let records = beginCachingLoad()
    do {
      let instance = try load()
      return (instance, endCachingLoad(from: records) ? takeDependencies(from: records) : [])
    } catch {
      if endCachingLoad(from: records) { dropDependencies(from: records) }
      throw error
    }
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
