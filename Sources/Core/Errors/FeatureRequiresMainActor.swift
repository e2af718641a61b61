/// A synchronous request, made off the main actor, for a feature whose loader runs on the main
/// actor, before it was loaded.
///
/// A main-actor loader (``FeatureLoader/cacheable(on:implementation:file:line:timeToLive:_:teardown:)-61gpq``
/// and its siblings) runs only on the main actor: a synchronous request made there runs it in
/// place, and an awaited request made anywhere hops there. A synchronous request made elsewhere
/// cannot hop, and never runs the loader where it is: it gets this error. A cacheable loaded once
/// is then served to every request, from any thread; a disposable never is.
///
/// ```
/// FeatureRequiresMainActor: SettingsModel loads on the main actor
/// ├─ requested at: App/Sync.swift:12
/// ├─ implementation: SettingsModel.live() registered at App/Main.swift:9 in Root
/// └─ fix: request it with `try await features.instance()`, which runs its loader on the main actor,
///         or make this request from the main actor
/// ```
public struct FeatureRequiresMainActor: DiagnosticError {
  /// The feature that was requested.
  public let feature: any Feature.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ feature: any Feature.Type, binding: Binding, in branch: Branch, at location: SourceLocation) {
    self.feature = feature
    var diagnostic = Diagnostic(
      kind: "FeatureRequiresMainActor", message: "\(feature) loads on the main actor", feature: feature, in: branch,
      frames: LoadingThread.currentPath, closingWith: feature, at: location)
    diagnostic.implementation = .init(
      name: binding.registration.implementation, location: binding.site, scope: binding.scope.name)
    let fix = """
      request it with `try await features.instance()`, which runs its loader on the main actor,
      or make this request from the main actor
      """
    diagnostic.fix =
      binding.registration.lifetime.isCached
      ? fix + ",\nor load it once on the main actor before requests from elsewhere" : fix
    self.diagnostic = diagnostic
  }
}

extension FeatureRequiresMainActor {
  /// Throws the error of a synchronous request through `branch` that would run the main-actor
  /// loader of `entry` off the main actor.
  @usableFromInline
  static func unlessOnMainActor(
    _ feature: any Feature.Type, entry: FeatureTable.EntryReference, in branch: Branch, at location: SourceLocation
  ) throws {
    guard !MainQueue.isCurrent() else { return }
    throw FeatureRequiresMainActor(feature, binding: entry.binding.object, in: branch, at: location)
  }
}
