import Arbor
import Logging

extension Logger {
  /// Logs a diagnostic: its one-line summary as the message, its JSON and kind as metadata (the
  /// keys of ``DiagnosticLogMetadata``), merged with `metadata`.
  ///
  /// ```swift
  /// logger.log(level: .error, diagnostic: failure.diagnostic, metadata: ["http.response.status_code": "500"])
  /// ```
  ///
  /// - Parameters:
  ///   - level: The entry's level.
  ///   - diagnostic: What to log.
  ///   - metadata: More metadata for the entry; a key of ``DiagnosticLogMetadata`` here wins.
  ///   - file: Where the entry is logged; captured for you.
  ///   - function: The function that logs it; captured for you.
  ///   - line: Where the entry is logged; captured for you.
  public func log(
    level: Logger.Level, diagnostic: Diagnostic, metadata: Logger.Metadata = [:], file: String = #fileID,
    function: String = #function, line: UInt = #line
  ) {
    log(
      level: level, "\(diagnostic.summary())",
      metadata: DiagnosticLogMetadata.metadata(for: diagnostic).merging(metadata) { _, given in given },
      file: file, function: function, line: line)
  }
}
