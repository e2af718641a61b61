import Arbor

/// The context of a session branch: who is signed in.
///
/// ```swift
/// let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
/// ```
public struct Session: Hashable, Sendable, CustomStringConvertible {
  /// The signed-in user's name.
  public var user: String

  /// A session of `user`.
  ///
  /// - Parameter user: The signed-in user's name.
  public init(user: String) {
    self.user = user
  }

  /// `Session(user: "ann")`, as diagnostics show a session branch's context.
  public var description: String { "Session(user: \"\(user)\")" }
}

/// A kind of branch: each session branch carries its ``Session``.
public enum SessionScope: FeaturesScope {
  /// Every session branch carries the session it was made for.
  public typealias Context = Session
}
