/// The contexts validation branches the defined scopes with: one value per scope whose `Context`
/// is not `Void`. A scope without one is reported unchecked, with the scopes below it.
///
/// ```swift
/// let validation = await root.validate { contexts in
///   contexts.use(Session(user: "check"), for: SessionScope.self)
/// }
/// ```
public struct ValidationContexts: Sendable {
  private var values: [ObjectIdentifier: any Sendable] = [:]

  init() {}

  /// Branches of `scope` are made with `context`.
  ///
  /// - Parameters:
  ///   - context: The context of every branch of `scope` that validation makes.
  ///   - scope: The scope.
  public mutating func use<Scope: FeaturesScope>(_ context: Scope.Context, for scope: Scope.Type) {
    values[ObjectIdentifier(scope)] = context
  }

  /// The context for branches of `scope`: the one given, `()` for a scope that needs none.
  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context? {
    if let given = values[ObjectIdentifier(scope)] { return given as? Scope.Context }
    return () as? Scope.Context
  }
}
