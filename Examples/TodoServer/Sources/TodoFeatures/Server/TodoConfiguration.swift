import Logging

/// How a TodoServer runs: where it listens, where it keeps todos, who can sign in.
public struct TodoConfiguration: Sendable {
  /// The address to listen on; `127.0.0.1` unless you say otherwise.
  public var host: String
  /// The port to listen on.
  public var port: Int
  /// The SQLite database file; `nil` for a database in memory.
  public var databasePath: String?
  /// Bearer tokens and the users they sign in.
  public var tokens: [String: String]
  /// How long a session may go unused before it is closed.
  public var sessionIdleTime: Duration
  /// How many sessions to keep at most.
  public var maximumSessions: Int

  /// A configuration.
  public init(
    host: String = "127.0.0.1", port: Int = 8080, databasePath: String? = nil,
    tokens: [String: String] = ["ann-token": "ann", "bob-token": "bob"], sessionIdleTime: Duration = .seconds(900),
    maximumSessions: Int = 10_000
  ) {
    self.host = host
    self.port = port
    self.databasePath = databasePath
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

  /// The configuration from the environment: `HOST`, `PORT`, `DATABASE` (a file path; in memory
  /// when unset), `TOKENS` (`token:user,token:user`).
  public static func fromEnvironment(_ environment: [String: String]) -> TodoConfiguration {
    var configuration = TodoConfiguration()
    if let host = environment["HOST"] { configuration.host = host }
    if let port = environment["PORT"].flatMap(Int.init) { configuration.port = port }
    configuration.databasePath = environment["DATABASE"]
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
