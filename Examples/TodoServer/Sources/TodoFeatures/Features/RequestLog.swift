import Arbor
import ArborMacros
import Logging

/// The request's logger: the server's, with the request's id and user in every line. One instance per request branch.
@Feature
public struct RequestLog: CacheableFeature {
  /// The logger.
  public var logger: Logger

  /// A logger that drops everything.
  public static var placeholder: RequestLog { RequestLog(logger: ServerLog.placeholder.logger) }

  /// The server's logger, with the request's id and user.
  public static func live() -> FeatureLoader {
    .cacheable { features in
      let request = try features.context(for: RequestScope.self)
      var logger = try features.instance(of: ServerLog.self).logger
      logger[metadataKey: "request.id"] = "\(request.id)"
      logger[metadataKey: "user"] = "\(try features.context(for: SessionScope.self).user)"
      return RequestLog(logger: logger)
    }
  }
}
