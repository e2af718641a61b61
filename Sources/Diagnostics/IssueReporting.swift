#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How Arbor reports a diagnostic that it cannot throw: a placeholder member called outside a test,
/// a feature registered twice.
///
/// A test-support module installs a reporter that records the diagnostic as a test failure when a
/// test is running. Without one, or outside a test, the diagnostic goes to standard error.
package enum IssueReporting {
  /// How serious a reported diagnostic is.
  package enum Severity: Sendable {
    case warning
    case failure
  }

  /// A reporter returns `true` when it took the diagnostic (a test was running).
  package typealias Reporter = @Sendable (Diagnostic, Severity) -> Bool

  // Written once per process by the test-support module, read on the (rare) reporting path only.
  private static let reporter = Lock<Reporter?>.make(nil)

  /// Installs the reporter; a later call replaces the earlier one.
  package static func install(_ reporter: @escaping Reporter) {
    self.reporter.withLock { $0 = reporter }
  }

  /// Reports a diagnostic to the installed reporter, or else writes it to standard error.
  ///
  /// - Returns: `true` when a test reporter recorded it; `false` when it went to standard error.
  @discardableResult
  package static func report(_ diagnostic: Diagnostic, severity: Severity) -> Bool {
    if let reporter = reporter.withLock({ $0 }), reporter(diagnostic, severity) { return true }
    writeToStandardError("\(severity == .warning ? "warning" : "error"): \(diagnostic.renderedTree())\n")
    return false
  }

  /// Writes text to standard error, unbuffered.
  package static func writeToStandardError(_ text: String) {
    var text = text
    // write(2) on descriptor 2 rather than the C `stderr` global, which is shared mutable state.
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
  }
}
