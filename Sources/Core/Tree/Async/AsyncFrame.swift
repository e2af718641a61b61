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

  /// The frames from the outermost load to this one.
  var frames: [LoadStep] { (parent?.frames ?? []) + [step] }
}
