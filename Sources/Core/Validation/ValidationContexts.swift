/// What validation branches the defined scopes with: one context per scope whose `Context` is not
/// `Void`, and the places the app branches a scope from, where the tree alone does not say.
///
/// A scope without a context is reported unchecked, with the scopes below it.
///
/// ```swift
/// let validation = await root.validate { contexts in
///   contexts.use(Session(user: "check"), for: SessionScope.self)
///   contexts.use(Request(id: 0), for: RequestScope.self)
///   contexts.branch(RequestScope.self, from: SessionScope.self)
/// }
/// ```
public struct ValidationContexts: Sendable {
  private var values: [ObjectIdentifier: any Sendable] = [:]
  /// The declared places, by the scope branched there: the scopes whose branches it is made from.
  private var places: [ObjectIdentifier: (scope: any FeaturesScope.Type, parents: [any FeaturesScope.Type])] = [:]

  init() {}

  /// Branches of `scope` are made with `context`.
  ///
  /// - Parameters:
  ///   - context: The context of every branch of `scope` that validation makes.
  ///   - scope: The scope.
  public mutating func use<Scope: FeaturesScope>(_ context: Scope.Context, for scope: Scope.Type) {
    values[ObjectIdentifier(scope)] = context
  }

  /// Declares that the app branches `scope` from branches of `parent`: validation checks `scope`
  /// there, below each branch of `parent` it makes, instead of where `scope` is defined.
  ///
  /// A scope defined beside another, at the root, can be branched from the root and from branches
  /// of the other alike; its loaders see a different path in each place. Without a declaration,
  /// validation checks a scope below the scope that defines it, or, when its loaders read the
  /// context of another scope validation branches, below that scope (it says so in a note).
  /// Declare each place the app branches the scope from; `RootFeaturesScope.self` is the root.
  ///
  /// ```swift
  /// contexts.branch(RequestScope.self, from: SessionScope.self)
  /// contexts.branch(RequestScope.self, from: RootFeaturesScope.self)  // and from the root, too
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The scope the app branches.
  ///   - parent: The scope whose branches the app makes branches of `scope` from.
  public mutating func branch<Scope: FeaturesScope, Parent: FeaturesScope>(
    _ scope: Scope.Type, from parent: Parent.Type
  ) {
    let parents = places[ObjectIdentifier(scope)]?.parents ?? []
    guard !parents.contains(where: { $0 == parent }) else { return }
    places[ObjectIdentifier(scope)] = (scope, parents + [parent])
  }

  /// The context for branches of `scope`: the one given, `()` for a scope that needs none.
  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context? {
    if let given = values[ObjectIdentifier(scope)] { return given as? Scope.Context }
    return () as? Scope.Context
  }

  /// Whether validation can branch `scope`: a context was given, or it needs none.
  func hasContext(for scope: any FeaturesScope.Type) -> Bool {
    func given<Scope: FeaturesScope>(_ scope: Scope.Type) -> Bool { context(for: scope) != nil }
    return given(scope)
  }

  /// `contexts.branch(RequestScope.self, from: SessionScope.self)`: the declaration of a place, as
  /// fixes write it.
  static func declaration(_ scope: any FeaturesScope.Type, from parent: any FeaturesScope.Type) -> String {
    let parentName = parent == RootFeaturesScope.self ? "RootFeaturesScope" : parent.name
    return "contexts.branch(\(scope.name).self, from: \(parentName).self)"
  }

  /// The places declared for `scope`; `nil` when none is.
  func places(of scope: any FeaturesScope.Type) -> [any FeaturesScope.Type]? {
    places[ObjectIdentifier(scope)]?.parents
  }

  /// Every declared place, the scopes branched there by name.
  var declared: [(scope: any FeaturesScope.Type, parent: any FeaturesScope.Type)] {
    places.values.sorted { $0.scope.name < $1.scope.name }.flatMap { place in place.parents.map { (place.scope, $0) } }
  }
}
