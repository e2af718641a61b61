import Configuration

// The types swift-configuration reads natively, each with its typed read.

extension String: ConfigurationValue {
  /// The string at `key`.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    snapshot.string(forKey: key, isSecret: isSecret)
  }
}

extension Int: ConfigurationValue {
  /// The integer at `key`.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    snapshot.int(forKey: key, isSecret: isSecret)
  }
}

extension Double: ConfigurationValue {
  /// The number at `key`.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    snapshot.double(forKey: key, isSecret: isSecret)
  }
}

extension Bool: ConfigurationValue {
  /// The Boolean at `key`.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    snapshot.bool(forKey: key, isSecret: isSecret)
  }
}

extension Duration: ConfigurationValue {
  /// The number of seconds at `key`: a whole number (`30`) or not (`1.5`).
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    // Providers with typed values (JSON, in-memory) give a whole number as an integer only; the
    // double is read last, so a value that is neither is reported as not a number.
    if let seconds = snapshot.int(forKey: key, isSecret: isSecret) { return .seconds(seconds) }
    return snapshot.double(forKey: key, isSecret: isSecret).map { .milliseconds(($0 * 1000).rounded()) }
  }

  /// `Duration (a number of seconds)`.
  public static var configurationTypeDescription: String { "Duration (a number of seconds)" }
}

extension Array: ConfigurationValue where Element: ConfigurationArrayElement {
  /// The array at `key`.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    Element.configurationArray(at: key, in: snapshot, isSecret: isSecret)
  }
}

extension Optional: ConfigurationValue where Wrapped: ConfigurationValue {
  /// The wrapped value at `key`; a property of an optional type reads `nil` where no provider has one.
  public static func configurationValue(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> Self? {
    Wrapped.configurationValue(at: key, in: snapshot, isSecret: isSecret).map { .some($0) }
  }

  /// The wrapped type's description.
  public static var configurationTypeDescription: String { Wrapped.configurationTypeDescription }
}

/// An element of an array that swift-configuration reads natively: `String`, `Int`, `Double`,
/// `Bool`, and `UInt8` (bytes).
public protocol ConfigurationArrayElement: Sendable, Equatable {
  /// The array at `key` in `snapshot`, or `nil`.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - snapshot: The providers' values at one moment.
  ///   - isSecret: Whether to treat the value as a secret whatever its provider says.
  /// - Returns: The array, or `nil`.
  static func configurationArray(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> [Self]?
}

extension String: ConfigurationArrayElement {
  /// The strings at `key`.
  public static func configurationArray(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> [Self]?
  {
    snapshot.stringArray(forKey: key, isSecret: isSecret)
  }
}

extension Int: ConfigurationArrayElement {
  /// The integers at `key`.
  public static func configurationArray(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> [Self]?
  {
    snapshot.intArray(forKey: key, isSecret: isSecret)
  }
}

extension Double: ConfigurationArrayElement {
  /// The numbers at `key`.
  public static func configurationArray(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> [Self]?
  {
    snapshot.doubleArray(forKey: key, isSecret: isSecret)
  }
}

extension Bool: ConfigurationArrayElement {
  /// The Booleans at `key`.
  public static func configurationArray(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> [Self]?
  {
    snapshot.boolArray(forKey: key, isSecret: isSecret)
  }
}

extension UInt8: ConfigurationArrayElement {
  /// The bytes at `key` (base64 in the environment, by default).
  public static func configurationArray(at key: ConfigKey, in snapshot: ConfigSnapshotReader, isSecret: Bool) -> [Self]?
  {
    snapshot.bytes(forKey: key, isSecret: isSecret)
  }
}
