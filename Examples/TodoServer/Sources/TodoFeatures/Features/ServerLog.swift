import Arbor
import Logging

/// The server's logger: one value for the whole tree. Requests log through ``RequestLog``, which
/// adds the request's id and user to it.
public struct ServerLog: StaticFeature {
  /// The logger.
  public var logger: Logger

  /// Wraps a logger.
  public init(logger: Logger) {
    self.logger = logger
  }

  /// A logger that drops everything.
  public static var placeholder: ServerLog {
    ServerLog(logger: Logger(label: "placeholder") { _ in SwiftLogNoOpLogHandler() })
  }
}
