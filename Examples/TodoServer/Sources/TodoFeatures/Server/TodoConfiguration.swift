import ArborConfiguration
import Configuration
import Logging

/// How a TodoServer runs: where it listens, who can sign in, and the providers its settings
/// (``ServerPort``, ``DatabasePath``) are read from.
public struct TodoConfiguration: Sendable {
  /// The address to listen on; `127.0.0.1` unless you say otherwise.
  public var host: String
  /// The providers of the tree's configured properties (the port, the database file), which the
  /// root's registry reads: the environment, for the executables.
  public var settings: FeaturesConfiguration
  /// Bearer tokens and the users they sign in.
  public var tokens: [String: String]
  /// How long a session may go unused before it is closed.
  public var sessionIdleTime: Duration
  /// How many sessions to keep at most.
  public var maximumSessions: Int

  /// A configuration.
  ///
  /// - Parameter settings: The providers of the port and the database file; with none, port 8080
  ///   and a database in memory.
  public init(
    host: String = "127.0.0.1", settings: FeaturesConfiguration = FeaturesConfiguration(providers: []),
    tokens: [String: String] = ["ann-token": "ann", "bob-token": "bob"], sessionIdleTime: Duration = .seconds(900),
    maximumSessions: Int = 10_000
  ) {
    self.host = host
    self.settings = settings
    self.tokens = tokens
    self.sessionIdleTime = sessionIdleTime
    self.maximumSessions = maximumSessions
  }

  /// The server's logger, at the level `LOG_LEVEL` names in `environment` (`info` by default).
  ///
  /// - Parameters:
  ///   - label: The logger's label: the executable's name.
  ///   - environment: The process's environment.
  /// - Returns: The logger.
  public static func logger(label: String, environment: [String: String]) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
    return logger
  }

  /// The configuration from the environment: `HOST`, `TOKENS` (`token:user,token:user`), and the
  /// settings `PORT` and `DATABASE` (a file path; in memory when unset), read through
  /// swift-configuration's environment provider.
  public static func fromEnvironment(_ environment: [String: String]) -> TodoConfiguration {
    var configuration = TodoConfiguration(
      settings: FeaturesConfiguration(provider: EnvironmentVariablesProvider(environmentVariables: environment)))
    if let host = environment["HOST"] { configuration.host = host }
    if let tokens = environment["TOKENS"] {
      configuration.tokens = Dictionary(
        tokens.split(separator: ",").compactMap { pair -> (String, String)? in
          let parts = pair.split(separator: ":", maxSplits: 1)
          return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { _, last in last })
    }
    return configuration
  }
}
