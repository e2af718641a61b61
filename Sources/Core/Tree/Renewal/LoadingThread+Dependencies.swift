extension LoadingThread {
  /// Starts collecting the instances a cacheable's load receives from its requests; the load calls
  /// ``endCachingLoad()`` when it ends, whatever its outcome.
  @usableFromInline
  func beginCachingLoad() {
    cachingLoads.append(dependencies.count)
  }

  /// Ends the innermost cacheable load on this path, which failed.
  @usableFromInline
  func abandonCachingLoad() {
    _ = endCachingLoad()
  }

  /// Ends the innermost cacheable load on this path.
  ///
  /// - Returns: The instances it received, for its branch to record when it caches the instance.
  func endCachingLoad() -> [Dependency] {
    let start = cachingLoads.removeLast()
    guard start < dependencies.count else { return [] }
    defer { dependencies.removeSubrange(start...) }
    return Array(dependencies[start...])
  }

  /// Records that the innermost cacheable load on this path received `dependency`.
  ///
  /// - Returns: Whether a cacheable load on this path took it; when none runs here, the caller
  ///   looks for an async one.
  func record(_ dependency: Dependency) -> Bool {
    guard !cachingLoads.isEmpty else { return false }
    dependencies.append(dependency)
    return true
  }
}
