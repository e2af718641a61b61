import Arbor

/// A handler asked its request context for the request's features, but no ``FeaturesMiddleware``
/// ran for the route, so the context's slot is empty.
///
/// ```
/// RequestFeaturesUnavailable: no request branch in AppContext
/// ├─ requested at: App/Routes.swift:12
/// ├─ endpoint: /todos
/// └─ fix: add FeaturesMiddleware to the router (router.add(middleware: FeaturesMiddleware(...)))
///         or to the route's group, before the route is added
/// ```
public struct RequestFeaturesUnavailable: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  /// - Parameters:
  ///   - context: The request context type that was asked.
  ///   - endpoint: The route's path, when Hummingbird has matched one.
  ///   - location: Where the features were requested, when known.
  init(context: Any.Type, endpoint: String?, at location: SourceLocation?) {
    self.diagnostic = Diagnostic(
      kind: "RequestFeaturesUnavailable",
      message: "no request branch in \(context)",
      location: location,
      notes: endpoint.map { [Diagnostic.Note("endpoint", $0)] } ?? [],
      fix: "add FeaturesMiddleware to the router (router.add(middleware: FeaturesMiddleware(...)))"
        + "\nor to the route's group, before the route is added"
    )
  }
}
