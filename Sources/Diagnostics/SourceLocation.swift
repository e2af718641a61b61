/// A place in source code: a `#fileID` and a line.
///
/// Arbor captures a location at every call that can fail, as a `StaticString` and a line, so that
/// nothing is formatted or allocated unless something goes wrong: it is a trivial two-word value,
/// and `description` formats it only when a diagnostic is rendered.
///
/// ```swift
/// let here = SourceLocation(fileID: #fileID, line: #line)
/// print(here)  // "App/Main.swift:12"
/// ```
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
  /// The `#fileID` of the file: `Module/File.swift`.
  public let fileID: StaticString
  /// The line in that file.
  public let line: UInt

  /// Creates a location; the defaults capture the caller's.
  ///
  /// - Parameters:
  ///   - fileID: The `#fileID` of the file.
  ///   - line: The line in that file.
  public init(fileID: StaticString = #fileID, line: UInt = #line) {
    self.fileID = fileID
    self.line = line
  }

  /// `Module/File.swift:line`.
  public var description: String { "\(fileID.description):\(line)" }

  /// Two locations are equal when they name the same file and line, wherever their strings live.
  ///
  /// ```swift
  /// SourceLocation(fileID: "App/Main.swift", line: 3) == SourceLocation(fileID: "App/Main.swift", line: 3)  // true
  /// ```
  ///
  /// - Parameters:
  ///   - lhs: A location.
  ///   - rhs: Another location.
  /// - Returns: Whether they are the same place.
  public static func == (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
    lhs.line == rhs.line && lhs.fileID.description == rhs.fileID.description
  }

  /// Hashes the file and line, consistently with ``==(_:_:)``.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(fileID.description)
    hasher.combine(line)
  }
}
