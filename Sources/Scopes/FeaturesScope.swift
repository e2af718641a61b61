/// A kind of branch in a features tree, with the context every branch of it carries.
///
/// Declare a scope as a case-less enum; its `Context` is what each branch of it is about: a user
/// session, a request. Register the scope's own loaders with `defineScope(_:_:)` and create branches
/// with `branch(_:context:)`.
///
/// ```swift
/// enum SessionScope: FeaturesScope { typealias Context = Session }
/// let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
/// ```
public protocol FeaturesScope: Sendable {
  /// The value every branch of this scope carries; `Void` when branches need none.
  associatedtype Context: Sendable = Void

  /// The name diagnostics use for the scope; the type's name unless you say otherwise.
  static var name: String { get }
}

extension FeaturesScope {
  /// The type's name: `SessionScope`.
  public static var name: String { String(describing: Self.self) }
}

/// The scope of a tree's root: the features registered directly in `FeaturesRoot`.
///
/// Every tree starts with one branch of it; diagnostics call it `Root`.
///
/// ```swift
/// try features.require(RootFeaturesScope.self)  // always succeeds
/// ```
public enum RootFeaturesScope: FeaturesScope {
  /// The root carries no context.
  public typealias Context = Void
  /// `Root`.
  public static var name: String { "Root" }
}
