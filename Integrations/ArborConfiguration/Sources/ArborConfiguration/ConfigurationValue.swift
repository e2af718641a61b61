import Configuration

/// A type that a ``ConfigurationProperty`` can hold: one swift-configuration reads.
///
/// Arbor provides `String`, `Int`, `Double`, `Bool`, their arrays, `[UInt8]` (bytes), `Duration`
/// (a number of seconds), and `Optional` of any of them. A type of yours conforms with one line when
/// it is `ExpressibleByConfigString` (parsed from a string, as `URL` and `UUID` are) or a
/// `RawRepresentable` enum with `String` raw values:
///
/// ```swift
/// enum LogLevel: String, ConfigurationValue { case debug, info, error }
/// ```
public protocol ConfigurationValue: Sendable, Equatable {
  /// The value at `key` in `snapshot`, or `nil` when no provider has one or it does not parse.
  ///
  /// Implement it with one of `ConfigSnapshotReader`'s typed reads, passing `isSecret` on: Arbor
  /// tells "no value" from "does not parse" by what the read reports.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - snapshot: The providers' values at one moment.
  ///   - isSecret: Whether to treat the value as a secret whatever its provider says.
  /// - Returns: The value, or `nil`.
  static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self?

  /// What a valid value looks like, for diagnostics: `Int`, `Duration (a number of seconds)`.
  static var configurationTypeDescription: String { get }
}

extension ConfigurationValue {
  /// The type's name.
  public static var configurationTypeDescription: String { String(describing: Self.self) }
}

extension ConfigurationValue where Self: ExpressibleByConfigString {
  /// The string at `key`, parsed with `init?(configString:)`.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    snapshot.string(forKey: key, as: Self.self, isSecret: isSecret)
  }
}

extension ConfigurationValue where Self: RawRepresentable, RawValue == String {
  /// The string at `key`, as a raw value.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    snapshot.string(forKey: key, as: Self.self, isSecret: isSecret)
  }
}
