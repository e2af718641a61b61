/// One library's version of every case of the benchmark.
///
/// Each case returns a closure that performs its operation `n` times and hands every result to
/// ``blackHole(_:)``. What a case needs (a root, a container, three levels of scopes) is built when
/// the case is made, outside the timed closure.
protocol Contender {
  /// a. Resolve a cached instance registered at the root.
  func cachedAtRoot() -> (Int) -> Void
  /// a2. The same from a branch three scopes below the root.
  func cachedThreeDeep() -> (Int) -> Void
  /// b. Resolve a disposable that depends on one cached instance.
  func disposableWithCached() -> (Int) -> Void
  /// c. Resolve a chain of ten disposables.
  func chainOfTen() -> (Int) -> Void
  /// d. Per request: branch a scope with a context, resolve its five cacheables, drop it.
  func request() -> (Int) -> Void
  /// e. Case a, made safe to run from several threads at once; e′ the same for a `Ticker`.
  func cachedConcurrently(capturing: Bool) -> @Sendable (Int) -> Void
  /// g. Build a container that registers every feature of the layered graph, then resolve each
  /// feature once.
  func layeredGraph() -> (Int) -> Void
  /// f. `count` live request scopes, each with its five cacheables resolved; the result keeps them.
  func keepRequests(_ count: Int) -> Any
  /// Checks the wiring gives the values every library must give, before anything is timed.
  func verify()
}

/// Stops the run when a library's wiring gives a wrong result: timing it would be meaningless.
func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
  if !condition { fatalError("benchmark wiring is wrong: \(message())", line: line) }
}
