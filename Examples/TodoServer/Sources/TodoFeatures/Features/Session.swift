import Arbor

/// A signed-in user's session: what every session branch is about.
public struct Session: Sendable, Hashable, CustomStringConvertible {
  /// The user's name.
  public var user: String

  /// A session of `user`.
  public init(user: String) {
    self.user = user
  }

  /// `ann`.
  public var description: String { user }
}

/// A kind of branch: one per signed-in user, kept across that user's requests.
public enum SessionScope: FeaturesScope {
  /// Every session branch carries its session.
  public typealias Context = Session
}
