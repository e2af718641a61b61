import Arbor
import Logging

/// What the server keeps for a signed-in user between requests: one instance per session branch,
/// which says in the log when the session opens and when it closes (evicted, or on shutdown).
public struct UserSession: CacheableFeature {
  /// The user's name.
  public var user: String
  /// Counts a request of the session; returns how many it has served.
  public var serve: @Sendable () -> Int
  /// Ends the session: logs how many requests it served.
  public var end: @Sendable () -> Void

  /// Creates a session.
  public init(user: String, serve: @escaping @Sendable () -> Int, end: @escaping @Sendable () -> Void) {
    self.user = user
    self.serve = serve
    self.end = end
  }

  /// Serves no one.
  public static var placeholder: UserSession {
    UserSession(
      user: "", serve: unimplemented("UserSession.serve", placeholder: 0), end: unimplemented("UserSession.end"))
  }

  /// A session that counts its requests and logs its opening and closing.
  public static func live() -> FeatureLoader {
    .cacheable { features in
      let session = try features.context(for: SessionScope.self)
      let logger = try features.instance(of: ServerLog.self).logger
      logger.info("session opened", metadata: ["user": "\(session.user)"])
      let requests = RequestCounter()
      return UserSession(
        user: session.user, serve: { requests.increment() },
        end: { logger.info("session closed", metadata: ["user": "\(session.user)", "requests": "\(requests.value)"]) })
    } teardown: { session in
      session.end()
    }
  }
}
