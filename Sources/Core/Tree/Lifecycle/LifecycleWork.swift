/// The code a tree runs for a branch's life: a loader, a teardown, a before-serving work, or the
/// making of a keyed branch (its context closure).
///
/// The rule that keeps lifecycle calls simple: **lifecycle work never waits for lifecycle work.**
/// Inside it, `close()` (and a keyed set's `evict` or `close`) starts or joins the close and returns
/// at once; `refresh` and `start` throw ``LifecycleWorkReentered``; a keyed set's request throws
/// ``KeyedBranchesCycle`` inside a making. So no close, renewal, start or making ever waits for
/// itself, and nothing searches for such loops: only loads wait for loads (``WaitGraph``).
///
/// A loader is known by its frame (the thread's, or the task's async frame); the other kinds, and a
/// test container's loads (which have no frame), are bound to ``current`` for the task that runs
/// them, and tasks they start inherit it.
enum LifecycleWork: Sendable {
  case loader(any Feature.Type)
  case teardown(PendingTeardown)
  case beforeServing(SourceLocation)
  case making(scope: any FeaturesScope.Type, key: any Sendable)

  /// The teardown, before-serving work, making or test container's load the current task runs: the
  /// innermost.
  @TaskLocal static var current: LifecycleWork?

  /// The lifecycle work the current task or thread runs, if any: a loader before the work around it.
  static var running: LifecycleWork? {
    if let frame = LoadingThread.current.top { return .loader(frame.pointee.feature) }
    if let frame = AsyncFrame.currentIfAny { return .loader(frame.step.feature) }
    return current
  }

  /// How diagnostics name it: `the teardown of Client (Client.live() at App/Client.swift:8)`.
  var described: String {
    switch self {
    case .loader(let feature): "the loader of \(feature)"
    case .teardown(let teardown): "the teardown of \(teardown.described)"
    case .beforeServing(let site): "the work before serving named at \(site)"
    case .making(let scope, let key): "the making of the \(scope.name) branch for \(String(reflecting: key))"
    }
  }

  /// Runs `body` in a task of its own, which nobody cancels (a teardown never starts cancelled),
  /// outside the loads of the caller's path: its requests are not part of them.
  static func detachedFromLoads<R: Sendable>(_ body: sending @escaping () async -> R) -> Task<R, Never> {
    Task {
      guard AsyncFrame.currentIfAny != nil else { return await body() }
      return await AsyncFrame.$current.withValue(nil) { await body() }
    }
  }
}
