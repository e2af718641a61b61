/// How the instances of a registered feature live: the one type that names the lifetimes.
///
/// Registrations carry one, feature tables resolve by it, and ``Features/Which`` reports it; every
/// switch over it is exhaustive, so a new lifetime is a change the compiler walks through.
@usableFromInline
package enum Lifetime: UInt8, Sendable {
  /// One value for the whole tree, registered at the root.
  case `static`
  /// Loaded for every request, in the requesting branch.
  case disposable
  /// Loaded once in the branch it is cached in, then shared by every request there and below.
  case cacheable
  /// A cacheable with a context: one instance per context value in the branch it is cached in.
  case cacheablePerContext

  /// The lifetime of a registration of `feature` made as `declared` (a loader's factory says
  /// `cacheable`; a context makes it one per context value).
  init<F: Feature>(_ declared: Lifetime, of feature: F.Type) {
    self = declared == .cacheable && F.Context.self != NoContext.self ? .cacheablePerContext : declared
  }

  /// Whether instances are cached in a branch.
  package var isCached: Bool {
    switch self {
    case .static, .disposable: false
    case .cacheable, .cacheablePerContext: true
    }
  }

  /// `cacheable`, `static`, ...: the word the renderings use.
  package var name: String {
    switch self {
    case .static: "static"
    case .disposable: "disposable"
    case .cacheable, .cacheablePerContext: "cacheable"
    }
  }

  /// How instances live, in a few words.
  package var summary: String {
    switch self {
    case .static: "one value for the whole tree"
    case .disposable: "a new instance for every request, loaded in the requesting branch"
    case .cacheable: "one instance per branch"
    case .cacheablePerContext: "one instance per branch and context value"
    }
  }
}
