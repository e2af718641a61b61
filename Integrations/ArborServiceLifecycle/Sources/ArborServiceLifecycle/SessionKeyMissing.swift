@_spi(Integrations) import Arbor
import Synchronization

/// A request had no session key, and the request scope cannot be branched where a request without
/// one goes: the sessions' parent.
///
/// A sessions middleware (`FeaturesMiddleware(sessions:scope:key:)` of ArborHummingbird or
/// ArborVapor) branches a request below the caller's session, found by the key its `key:` closure
/// reads from the request. A `nil` key means "signed out": the request is branched from the
/// sessions' parent instead. When the request scope is defined only for session branches, that
/// branch cannot be made, and every request without a key would fail with a server error. Refuse
/// such a request in the `key:` closure (401), or define the request scope where the parent can
/// branch it, to serve signed-out requests.
///
/// ```
/// SessionKeyMissing: a request without a session key cannot branch RequestScope from Root
/// ├─ middleware at: App/Routes.swift:12
/// ├─ key: the key: closure returned nil, which branches the request from the sessions' parent (Root)
/// ├─ fix: refuse a request without a key in the key: closure: throw HTTPError(.unauthorized),
/// │       or, to serve signed-out requests, define RequestScope where Root can branch it:
/// │       registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
/// └─ cause: FeaturesScopeUndefined: RequestScope is not defined in Root
///    ...
/// ```
///
/// The middleware finds this wiring as it is made, when its `key:` closure can return `nil` (its type
/// is `Key?`) and the sessions' parent cannot branch the request scope; the ``FeaturesService`` of
/// that tree then fails its validation at start-up with it, before any request fails:
///
/// ```
/// SessionKeyMissing: a request without a session key cannot branch RequestScope from Root
/// ├─ middleware at: App/Routes.swift:12
/// ├─ key: the key: closure can return nil, which branches the request from the sessions' parent (Root)
/// └─ fix: refuse a request without a key in the key: closure: throw HTTPError(.unauthorized) instead of returning nil,
///         or, to serve signed-out requests, define RequestScope where Root can branch it:
///         registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
/// ```
public struct SessionKeyMissing: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  /// The diagnostic of a request without a key whose branch `undefined` says cannot be made.
  ///
  /// ```swift
  /// throw SessionKeyMissing(undefined, refusal: "throw HTTPError(.unauthorized)", at: site)
  /// ```
  ///
  /// - Parameters:
  ///   - undefined: Why the request's branch could not be made from the sessions' parent.
  ///   - refusal: How the framework's `key:` closure refuses a request: `throw HTTPError(.unauthorized)`.
  ///   - location: Where the middleware was made.
  public init(_ undefined: FeaturesScopeUndefined, refusal: String, at location: SourceLocation) {
    self.init(
      scope: undefined.scope.name, parent: undefined.diagnostic.scope.last?.name ?? "Root",
      key: "the key: closure returned nil", refusal: "\(refusal),", causes: [undefined.diagnostic], at: location)
  }

  /// The diagnostic of a sessions middleware, found as it is made, whose `key:` closure can return
  /// `nil` where the sessions' parent cannot branch the request scope.
  ///
  /// ```swift
  /// SessionKeyMissing(scope: "RequestScope", parent: "Root", refusal: "throw HTTPError(.unauthorized)", at: site)
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The request scope's name.
  ///   - parent: The name of the scope of the sessions' parent.
  ///   - refusal: How the framework's `key:` closure refuses a request: `throw HTTPError(.unauthorized)`.
  ///   - location: Where the middleware was made.
  @_spi(Integrations)
  public init(scope: String, parent: String, refusal: String, at location: SourceLocation) {
    self.init(
      scope: scope, parent: parent, key: "the key: closure can return nil",
      refusal: "\(refusal) instead of returning nil,", causes: [], at: location)
  }

  private init(
    scope: String, parent: String, key: String, refusal: String, causes: [Diagnostic], at location: SourceLocation
  ) {
    let registry = parent == "Root" ? "FeaturesRoot" : "defineScope(\(parent).self)"
    diagnostic = Diagnostic(
      kind: "SessionKeyMissing",
      message: "a request without a session key cannot branch \(scope) from \(parent)",
      notes: [
        .init("middleware at", location.description),
        .init("key", "\(key), which branches the request from the sessions' parent (\(parent))"),
      ],
      fix: "refuse a request without a key in the key: closure: \(refusal)"
        + "\nor, to serve signed-out requests, define \(scope) where \(parent) can branch it:"
        + "\nregistry.defineScope(\(scope).self) { ... } in \(registry)",
      causes: causes)
  }
}

extension SessionKeyMissing {
  /// Notes, for the start-up of the tree `parent` is in, a sessions middleware whose `key:` closure
  /// can return `nil` where `parent` cannot branch `scope`: every request without a key would fail.
  /// A ``FeaturesService`` of that tree fails its validation with it.
  ///
  /// ```swift
  /// SessionKeyMissing.checkAtStartUp(RequestScope.self, from: sessions.parent, refusal: "throw HTTPError(.unauthorized)", at: site)
  /// ```
  ///
  /// - Parameters:
  ///   - scope: The request scope.
  ///   - parent: The sessions' parent.
  ///   - refusal: How the framework's `key:` closure refuses a request.
  ///   - location: Where the middleware was made.
  @_spi(Integrations)
  public static func checkAtStartUp<Scope: FeaturesScope>(
    _ scope: Scope.Type, from parent: Features, refusal: String, at location: SourceLocation
  ) {
    guard !parent.canBranch(scope), let tree = parent.tree else { return }
    StartUpFindings.shared.note(
      SessionKeyMissing(scope: scope.name, parent: parent.scopeName, refusal: refusal, at: location), in: tree)
  }
}

/// What server integrations found wrong as they were set up, by the tree they serve: the start-up
/// of that tree fails with it. Trees are held weakly, so a finding goes with its tree.
final class StartUpFindings: Sendable {
  static let shared = StartUpFindings()

  private struct Finding {
    weak var tree: (any AnyObject & Sendable)?
    let error: any DiagnosticError
  }

  private let findings = Mutex<[Finding]>([])

  /// Notes `error` for the start-up of `tree`.
  func note(_ error: any DiagnosticError, in tree: any AnyObject & Sendable) {
    findings.withLock { findings in
      findings.removeAll { $0.tree == nil }
      findings.append(Finding(tree: tree, error: error))
    }
  }

  /// What was noted for `tree`, in order.
  func errors(for tree: (any AnyObject & Sendable)?) -> [any DiagnosticError] {
    guard let tree else { return [] }
    return findings.withLock { findings in findings.filter { $0.tree === tree }.map(\.error) }
  }
}
