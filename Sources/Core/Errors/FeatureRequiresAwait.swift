/// A synchronous request for a feature whose loader is `async`, before it was loaded.
///
/// Async loaders run only for `try await features.instance()`. A cacheable loaded that way is then
/// served to synchronous requests too; a disposable never is.
///
/// A synchronous request made in a task gets a fix that says where to await: in the async code
/// rather than a synchronous function it calls, and, for top-level code (`main.swift`), where Swift
/// chooses the synchronous `instance` even under `try await`, in an `@main` type's async `main()`.
///
/// ```
/// FeatureRequiresAwait: Database is loaded asynchronously
/// ├─ requested at: App/Handler.swift:8
/// ├─ implementation: Database.connected() registered at App/Main.swift:14 in Root
/// └─ fix: request it with `try await features.instance()`,
///         or await it once in this branch before synchronous requests
/// ```
public struct FeatureRequiresAwait: DiagnosticError {
  /// The feature that was requested.
  public let feature: any Feature.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ feature: any Feature.Type, binding: Binding, in branch: Branch, at location: SourceLocation) {
    self.feature = feature
    var diagnostic = Diagnostic(
      kind: "FeatureRequiresAwait", message: "\(feature) is loaded asynchronously", feature: feature, in: branch,
      frames: LoadingThread.currentPath, closingWith: feature, at: location)
    diagnostic.implementation = .init(
      name: binding.registration.implementation, location: binding.site, scope: binding.scope.name)
    // In a task, the code could have awaited: a synchronous function or loader stands between the
    // task and this request, or the request is top-level code, where Swift picks the synchronous
    // `instance` even when the line reads `try await`. "Await it" alone would then ask for what the
    // line may already say.
    let fix = Task.basePriority == nil ? Self.fixOutsideTasks : Self.fixInTask
    let cached = binding.registration.lifetime.isCached
    diagnostic.fix = cached ? fix + ",\nor await it once in this branch before synchronous requests" : fix
    self.diagnostic = diagnostic
  }

  /// The fix of a request made outside any task: synchronous code, which can only be made async.
  static let fixOutsideTasks = "request it with `try await features.instance()`"

  /// The fix of a synchronous request made in a task.
  static let fixInTask = """
    request it with `try await features.instance()` from async code (an async function or loader),
    not from a synchronous function it calls; in top-level code (main.swift), where Swift makes this
    synchronous request even under `try await`, move the code into an async function,
    such as `static func main() async throws` of an `@main` type
    """
}

extension FeatureRequiresAwait {
  /// The error of a synchronous request through `branch` that would have to run the async loader
  /// of `entry`.
  ///
  /// When the task is inside the async load of this very request (an async loader awaited a
  /// feature whose synchronous loader requests it back), awaiting could never help: that is a
  /// cycle, reported with the whole path.
  @usableFromInline
  static func orCycle<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, in branch: Branch,
    at location: SourceLocation
  ) -> any Error {
    if let cycle = AsyncFrame.cycle(feature, context: context, in: branch, at: location) { return cycle }
    return FeatureRequiresAwait(feature, binding: entry.binding.object, in: branch, at: location)
  }
}
