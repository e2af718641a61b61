import Synchronization

/// One feature being loaded asynchronously: a frame of a task's resolution path.
///
/// Async loaders may resume on any thread, so their path cannot live on a thread's stack: each
/// load's task carries it as a task-local, inherited by the tasks its loader starts.
final class AsyncFrame: @unchecked Sendable {
  // Sendable: immutable.
  let step: LoadStep
  let parent: AsyncFrame?
  /// The load this frame runs in, for finding loads that wait for each other: its own for a
  /// cacheable, the enclosing one for a disposable.
  let load: AsyncLoadNode

  init(step: LoadStep, parent: AsyncFrame?, load: AsyncLoadNode) {
    self.step = step
    self.parent = parent
    self.load = load
  }

  /// The task's async path: the frames of the loads it runs inside, innermost first.
  @TaskLocal static var current: AsyncFrame?

  /// ``current``, read only once some task ran an async load: until then no task has a path, and
  /// the synchronous requests of loaders skip the task-local read.
  static var currentIfAny: AsyncFrame? {
    wasEverSet.load(ordering: .relaxed) ? current : nil
  }

  /// Whether some task ran an async load; only ever goes from false to true. Relaxed is enough: a
  /// task sees a path only if it runs inside the load that set it.
  private static let wasEverSet = Atomic<Bool>(false)

  /// Call before running a load with a path (`$current.withValue`).
  static func willSetCurrent() {
    if !wasEverSet.load(ordering: .relaxed) { wasEverSet.store(true, ordering: .relaxed) }
  }

  /// The loads this frame runs inside, its own included.
  var loadsOnPath: Set<ObjectIdentifier> {
    var loads: Set<ObjectIdentifier> = []
    var frame: AsyncFrame? = self
    while let current = frame {
      loads.insert(ObjectIdentifier(current.load))
      frame = current.parent
    }
    return loads
  }

  /// The frames from the outermost load to this one.
  var frames: [LoadStep] { (parent?.frames ?? []) + [step] }
}

extension AsyncFrame {
  /// The cycle a request for `feature` with `context` through `branch` closes, if the task is
  /// already loading it there (with the same context, or one that cannot be compared).
  static func cycle<F: Feature>(
    _ feature: F.Type, context: F.Context, in branch: Branch, at location: SourceLocation
  ) -> CircularDependency? {
    var frame = current
    while let current = frame {
      if current.step.feature == feature, current.step.branch == ObjectIdentifier(branch),
        let loading = current.step.context as? F.Context
      {
        switch ContextComparison(loading, context) {
        case .same:
          return CircularDependency(LoadingThread.currentPath, closingWith: feature, in: branch, at: location)
        case .incomparable:
          return CircularDependency(
            LoadingThread.currentPath, closingWith: feature, in: branch, incomparable: F.Context.self, at: location)
        case .different:
          break
        }
      }
      frame = current.parent
    }
    return nil
  }
}
