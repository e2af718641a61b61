import ArborConfiguration
import Configuration

// The properties the tests read: one of each kind of value a server reads. The README's are among
// them.

typealias ServerPort = Readme.ServerPort
typealias DatabasePath = Readme.DatabasePath
typealias APIToken = Readme.APIToken

enum LoadFactor: ConfigurationProperty {
  static var configurationKey: String { "load.factor" }
  static var defaultValue: Double { 0.75 }
}

enum Verbose: ConfigurationProperty {
  static var configurationKey: String { "verbose" }
  static var defaultValue: Bool { false }
}

enum RequestTimeout: ConfigurationProperty {
  static var configurationKey: String { "http.timeout" }
  static var defaultValue: Duration { .seconds(30) }
}

enum AllowedOrigins: ConfigurationProperty {
  static var configurationKey: String { "http.origins" }
  static var defaultValue: [String] { [] }
}

enum RetryDelays: ConfigurationProperty {
  static var configurationKey: String { "retry.delays" }
  static var defaultValue: [Int] { [] }
}

enum LogLevel: String, ConfigurationValue {
  case debug, info, error
}

enum Logging: ConfigurationProperty {
  static var configurationKey: String { "log.level" }
  static var defaultValue: LogLevel { .info }
}

/// A type of the app's, parsed from a string.
struct Endpoint: ExpressibleByConfigString, ConfigurationValue {
  let host: String
  let port: Int

  init?(configString: String) {
    let parts = configString.split(separator: ":")
    guard parts.count == 2, let port = Int(parts[1]) else { return nil }
    (host, self.port) = (String(parts[0]), port)
  }

  var description: String { "\(host):\(port)" }
}

enum Upstream: ConfigurationProperty {
  static var configurationKey: String { "upstream" }
  static var defaultValue: Endpoint { Endpoint(configString: "localhost:80")! }
}

enum ReplicaPath: ConfigurationProperty {
  static var configurationKey: String { "database.replica" }
  static var defaultValue: String? { nil }
}

/// Secret whatever the provider says.
enum SigningKey: ConfigurationProperty {
  static var configurationKey: String { "signing.key" }
  static var defaultValue: String { "" }
  static var isSecret: Bool { true }
}
