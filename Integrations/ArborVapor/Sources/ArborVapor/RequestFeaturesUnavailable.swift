import Arbor

/// A handler asked its request for the request's features, but no ``FeaturesMiddleware`` ran for the
/// route (or the handler asked after its response was made, when the branch is closed).
///
/// ```
/// RequestFeaturesUnavailable: no request branch for GET /todos
/// ├─ route: GET /todos
/// └─ fix: add FeaturesMiddleware to the application (app.middleware.use(FeaturesMiddleware(...)))
///         or to the route's group (app.grouped(FeaturesMiddleware(...))), before the route is added
/// ```
public struct RequestFeaturesUnavailable: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  /// - Parameters:
  ///   - method: The request's method.
  ///   - path: The request's path.
  ///   - route: The route Vapor matched, when it matched one.
  init(method: String, path: String, route: String?) {
    self.diagnostic = Diagnostic(
      kind: "RequestFeaturesUnavailable",
      message: "no request branch for \(method) \(path)",
      notes: route.map { [Diagnostic.Note("route", $0)] } ?? [],
      fix: "add FeaturesMiddleware to the application (app.middleware.use(FeaturesMiddleware(...)))"
        + "\nor to the route's group (app.grouped(FeaturesMiddleware(...))), before the route is added"
    )
  }
}
