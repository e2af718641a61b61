import Arbor
import ArborMacros
import Logging

/// What the server keeps for a signed-in user between requests: one instance per session branch,
/// which says in the log when the session opens and when it closes (evicted, or on shutdown).
@Feature
public struct UserSession: CacheableFeature {
  /// The user's name; nobody's in the placeholder.
  public var user: String = ""
  /// Counts a request of the session; returns how many it has served (none, in the placeholder).
  public var serve: @Sendable () -> Int = { 0 }
  /// Ends the session: logs how many requests it served.
  public var end: @Sendable () -> Void

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
