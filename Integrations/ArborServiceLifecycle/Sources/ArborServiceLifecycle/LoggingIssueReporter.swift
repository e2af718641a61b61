import Arbor
import Logging

/// Routes Arbor's issue reports (a placeholder member called, a branch released before its
/// teardowns ran, a teardown that failed after its request failed) to a `Logger`, with the
/// diagnostic's JSON as metadata, instead of standard error.
///
/// In tests, `ArborTesting` still turns every report into a test failure first.
///
/// ```swift
/// LoggingIssueReporter(logger: logger).install()
/// ```
public struct LoggingIssueReporter: Sendable {
  /// Where reports go.
  public var logger: Logger

  /// A reporter that logs to `logger`.
  ///
  /// - Parameter logger: Where reports go.
  public init(logger: Logger) {
    self.logger = logger
  }

  /// Installs this reporter as Arbor's, replacing the one installed before.
  public func install() {
    IssueReporting.install { report in self.report(report) }
  }

  /// Logs a report: a warning as `.warning`, a failure as `.error`, its summary as the message,
  /// its diagnostic's JSON under `arbor.diagnostic`, its kind and the site it is attributed to.
  ///
  /// ```swift
  /// IssueReporting.install { report in
  ///   LoggingIssueReporter(logger: logger).report(report)
  ///   crashReporter.record(report.diagnostic.json())
  /// }
  /// ```
  ///
  /// - Parameter report: What Arbor reported.
  public func report(_ report: IssueReporting.Report) {
    let metadata: Logger.Metadata = report.site.map { ["arbor.site": .string($0.description)] } ?? [:]
    logger.log(
      level: report.severity == .warning ? .warning : .error, diagnostic: report.diagnostic, metadata: metadata)
  }
}
