import Arbor

/// The slot in a request context where ``FeaturesMiddleware`` puts the request's branch.
///
/// Hummingbird creates a request context before any middleware runs, so the branch cannot be there
/// from the start: a context that conforms to ``FeaturesRequestContext`` holds an empty slot, and the
/// middleware fills it in the copy it hands to the rest of the chain. Handlers never read the slot
/// directly: ``FeaturesRequestContext/features`` and ``FeaturesRequestContext/instance(of:context:file:line:isolation:)``
/// read it, and say how to fix the router when it is empty.
///
/// ```swift
/// struct AppContext: FeaturesRequestContext {
///   var coreContext: CoreRequestContextStorage
///   var requestFeatures = RequestFeatures()
///   init(source: Source) { coreContext = .init(source: source) }
/// }
/// ```
public struct RequestFeatures: Sendable {
  /// The request's branch, once the middleware has made it.
  var branch: Features?

  /// An empty slot, as a request context starts.
  public init() {
    self.branch = nil
  }

  /// A slot holding a request's branch.
  @usableFromInline
  init(_ branch: Features) {
    self.branch = branch
  }
}
