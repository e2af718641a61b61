import Arbor
import ArborMacros
import Logging

/// The server's logger: one value for the whole tree. Requests log through ``RequestLog``, which
/// adds the request's id and user to it.
@Feature
public struct ServerLog: StaticFeature {
  /// The logger.
  public var logger: Logger

  /// A logger that drops everything.
  public static var placeholder: ServerLog {
    ServerLog(logger: Logger(label: "placeholder") { _ in SwiftLogNoOpLogHandler() })
  }
}
