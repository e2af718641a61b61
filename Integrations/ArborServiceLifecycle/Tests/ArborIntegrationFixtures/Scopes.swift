import Arbor

/// What a request branch carries in the integrations' tests: the request id the server gave it, its
/// path, and the user its `x-user` header names.
public struct RequestInfo: Sendable, Hashable {
  /// The server's id of the request.
  public var id: String
  /// The request's path.
  public var path: String
  /// The user the request's `x-user` header names.
  public var user: String?

  /// A request's info.
  public init(id: String, path: String, user: String? = nil) {
    self.id = id
    self.path = path
    self.user = user
  }
}

/// The scope of request branches.
public enum RequestScope: FeaturesScope { public typealias Context = RequestInfo }

/// The signed-in user a session branch is about.
public struct Session: Sendable, Hashable {
  /// The user's name.
  public var user: String

  /// A session of `user`.
  public init(user: String) { self.user = user }
}

/// The scope of session branches.
public enum SessionScope: FeaturesScope { public typealias Context = Session }

/// The contexts validation uses for the test tree's scopes.
@Sendable public func validationContexts(_ contexts: inout ValidationContexts) {
  contexts.use(RequestInfo(id: "validation", path: "/todos/1"), for: RequestScope.self)
  contexts.use(Session(user: "validation"), for: SessionScope.self)
}
