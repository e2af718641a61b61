/// A place in source code: a `#fileID` and a line.
///
/// Arbor captures a location at every call that can fail, as a `StaticString` and a line, so that
/// nothing is formatted or allocated unless something goes wrong.
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

  public static func == (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
    lhs.line == rhs.line && lhs.fileID.description == rhs.fileID.description
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(fileID.description)
    hasher.combine(line)
  }
}
