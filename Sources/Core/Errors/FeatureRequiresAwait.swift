/// A synchronous request for a feature whose loader is `async`, before it was loaded.
///
/// Async loaders run only for `try await features.instance()`. A cacheable loaded that way is then
/// served to synchronous requests too; a disposable never is.
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
    diagnostic.fix =
      binding.registration.lifetime.isCached
      ? "request it with `try await features.instance()`,\nor await it once in this branch before synchronous requests"
      : "request it with `try await features.instance()`"
    self.diagnostic = diagnostic
  }
}
