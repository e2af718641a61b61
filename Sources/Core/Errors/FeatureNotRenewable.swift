/// A refresh of a feature that caches nothing: a static feature or a disposable.
///
/// Only cacheable features keep instances to renew. A static feature is one value for the tree; a
/// disposable is loaded anew for every request already.
///
/// ```
/// FeatureNotRenewable: Printer caches no instance to refresh: it is disposable
/// ├─ requested at: App/SignOut.swift:12
/// ├─ implementation: Printer.console() registered at App/Main.swift:9 in Root
/// └─ fix: every request already gets a new Printer; refresh the cacheable features it uses instead
/// ```
public struct FeatureNotRenewable: DiagnosticError {
  /// The feature that was refreshed.
  public let feature: any Feature.Type
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  init(_ feature: any Feature.Type, binding: Binding, in branch: Branch, at location: SourceLocation) {
    self.feature = feature
    let isStatic = binding.registration.lifetime == .static
    var diagnostic = Diagnostic(
      kind: "FeatureNotRenewable",
      message: "\(feature) caches no instance to refresh: it is \(isStatic ? "static" : "disposable")",
      feature: feature, in: branch, frames: [], at: location)
    diagnostic.implementation = .init(
      name: binding.registration.implementation, location: binding.site, scope: binding.scope.name)
    diagnostic.fix =
      isStatic
      ? "a static feature is one value for the tree: register a cacheable loader for \(feature)"
        + " to renew it,\nor a property to change a value while the tree runs"
      : "every request already gets a new \(feature); refresh the cacheable features it uses instead"
    self.diagnostic = diagnostic
  }
}
