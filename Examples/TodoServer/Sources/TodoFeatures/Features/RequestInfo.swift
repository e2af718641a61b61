import Arbor

/// What a request branch is about: the request's id (the server framework's), method and path.
public struct RequestInfo: Sendable, Hashable, CustomStringConvertible {
  /// The request's id, in every log line the request writes.
  public var id: String
  /// `GET`.
  public var method: String
  /// `/todos`.
  public var path: String

  /// Describes a request.
  public init(id: String, method: String, path: String) {
    self.id = id
    self.method = method
    self.path = path
  }

  /// `GET /todos (3f2a…)`.
  public var description: String { "\(method) \(path) (\(id))" }
}

/// A kind of branch: one per request, below the caller's session (or the root, when signed out).
public enum RequestScope: FeaturesScope {
  /// Every request branch carries its request's info.
  public typealias Context = RequestInfo
}
