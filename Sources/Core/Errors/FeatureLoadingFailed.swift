/// A loader threw: the feature could not be loaded. Nothing is cached; the next request tries again.
///
/// The error the loader threw is the ``cause``; if it is itself a ``DiagnosticError`` (another
/// feature that failed while this one loaded), its tree nests below this one, so a failure three
/// loads deep reads as three nested nodes, each with the site of its request. The top node shows the
/// whole resolution path; a cause in the same branch leaves out the scope its parent shows.
/// Any other error is a leaf: its type and description, and a fix pointing at the loader.
///
/// ```
/// FeatureLoadingFailed: could not load Greeter
/// ├─ requested at: App/Main.swift:42
/// ├─ scope: Root › SessionScope(Session(user: "ann"))
/// ├─ path: Greeter → Printer
/// ├─ implementation: Greeter.live() registered at App/Main.swift:12 in SessionScope
/// └─ cause: FeatureUndefined: no implementation of Printer
///    ├─ requested at: App/Greeter.swift:17
///    ├─ searched: SessionScope, Root
///    └─ fix: register a loader for Printer with registry.use(...) in FeaturesRoot
///            or in defineScope(SessionScope.self)
/// ```
public struct FeatureLoadingFailed: DiagnosticError {
  /// The feature whose loader threw.
  public let feature: any Feature.Type
  /// What the loader threw.
  public let cause: any Error
  /// What failed, where, and its cause.
  public let diagnostic: Diagnostic

  /// - Parameter path: The loads that led to this request, outermost first.
  init(
    _ feature: any Feature.Type, binding: Binding, cause: any Error, in branch: Branch, path: [LoadStep],
    at location: SourceLocation
  ) {
    self.feature = feature
    self.cause = cause
    var diagnostic = Diagnostic(
      kind: "FeatureLoadingFailed", message: "could not load \(feature)", feature: feature, in: branch,
      frames: path, closingWith: feature, at: location)
    let causeDiagnostic = Diagnostic(describing: cause)
    if causeDiagnostic.path.count > diagnostic.path.count { diagnostic.path = causeDiagnostic.path }
    diagnostic.implementation = .init(
      name: binding.registration.implementation, location: binding.site, scope: binding.scope.name)
    if !(cause is any DiagnosticError) {
      // The loader's own error: the place to look is where the loader is written.
      diagnostic.fix =
        "\(binding.registration.implementation) (\(binding.registration.location)) threw the cause: handle it there,"
        + "\nor request \(feature) again: failures are not cached"
    }
    diagnostic.causes = [causeDiagnostic.nested(under: diagnostic)]
    self.diagnostic = diagnostic
  }
}

extension FeatureLoadingFailed {
  /// The error a loader's `cause` becomes: a cycle passes through as it is, since it already names
  /// the whole loop; anything else is wrapped with the diagnostic of the load, the innermost of
  /// `thread`'s path.
  @usableFromInline
  static func loaderThrew<F: Feature>(
    _ cause: any Error, _ feature: F.Type, entry: FeatureTable.EntryReference, in branch: Branch,
    thread: LoadingThread, at location: SourceLocation
  ) -> any Error {
    if let cycle = cause as? CircularDependency { return cycle }
    return FeatureLoadingFailed(
      feature, binding: entry.binding.object, cause: cause, in: branch, path: Array(thread.frames.dropLast()),
      at: location)
  }

  /// The error of a request that waited for another request's load, which failed with `failure`:
  /// the same cause, with this request's own site and path (a cycle stays as it is).
  static func waitedFor<F: Feature>(
    _ feature: F.Type, binding: Binding, failure: any Error, in branch: Branch, path: [LoadStep],
    at location: SourceLocation
  ) -> any Error {
    // A cycle already names the whole loop, and reaches every request as it is.
    if failure is CircularDependency { return failure }
    let cause = (failure as? FeatureLoadingFailed).flatMap { $0.feature == feature ? $0.cause : nil } ?? failure
    return FeatureLoadingFailed(feature, binding: binding, cause: cause, in: branch, path: path, at: location)
  }
}
