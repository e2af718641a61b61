import Arbor

/// The server's session branches, one per bearer token, below `root`: closed when unused for the
/// configuration's idle time, and at most its maximum count kept.
///
/// ```swift
/// let sessions = todoSessions(root, configuration) { HTTPError(.unauthorized, message: "unknown token") }
/// ```
///
/// - Parameters:
///   - root: The features tree.
///   - configuration: The idle time and the maximum count of sessions.
///   - unknownToken: The error that refuses a token no account has: the server framework's 401.
/// - Returns: The session branches.
public func todoSessions(
  _ root: Features, _ configuration: TodoConfiguration, unknownToken: @escaping @Sendable () -> any Error
) -> KeyedBranches<String, SessionScope> {
  KeyedBranches(
    SessionScope.self, of: root, idleTime: configuration.sessionIdleTime, maximumCount: configuration.maximumSessions
  ) { (token: String) in
    guard let user = try root.instance(of: Accounts.self).user(token) else { throw unknownToken() }
    return Session(user: user)
  }
}
