import ArborConfiguration

/// The port the server listens on: `PORT` in the environment, 8080 without it.
public enum ServerPort: ConfigurationProperty {
  public static var configurationKey: String { "port" }
  public static var defaultValue: Int { 8080 }
}

/// The SQLite database file: `DATABASE` in the environment; a database in memory without it.
public enum DatabasePath: ConfigurationProperty {
  public static var configurationKey: String { "database" }
  public static var defaultValue: String? { nil }
}
