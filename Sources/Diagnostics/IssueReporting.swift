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

  /// A diagnostic as it is reported: how serious it is, and the source site a test failure is
  /// attributed to.
  package struct Report: Sendable, Hashable {
    /// What went wrong.
    package var diagnostic: Diagnostic
    /// A warning (the caller goes on with a placeholder value) or a failure.
    package var severity: Severity
    /// Where the mistake is written: a placeholder's site, else where the failing request was made.
    package var site: SourceLocation?

    /// A report; `site` defaults to where the diagnostic says the failing request was made.
    package init(_ diagnostic: Diagnostic, severity: Severity, site: SourceLocation? = nil) {
      self.diagnostic = diagnostic
      self.severity = severity
      self.site = site ?? diagnostic.location
    }
  }

  /// A reporter returns `true` when it took the report (a test was running).
  package typealias Reporter = @Sendable (Report) -> Bool

  // Written once per process by the test-support module, read on the (rare) reporting path only.
  private static let reporter = Lock<Reporter?>.make(nil)

  /// Installs the reporter; a later call replaces the earlier one.
  package static func install(_ reporter: @escaping Reporter) {
    self.reporter.withLock { $0 = reporter }
  }

  /// Reports a diagnostic to the installed reporter, or else writes it to standard error.
  ///
  /// - Parameters:
  ///   - diagnostic: What went wrong.
  ///   - severity: A warning or a failure.
  ///   - site: Where a test failure is attributed; `nil` for the diagnostic's own location.
  /// - Returns: `true` when a test reporter recorded it; `false` when it went to standard error.
  @discardableResult
  package static func report(_ diagnostic: Diagnostic, severity: Severity, at site: SourceLocation? = nil) -> Bool {
    let report = Report(diagnostic, severity: severity, site: site)
    if let capture {
      capture.receive(report)
      return true
    }
    if let reporter = reporter.withLock({ $0 }), reporter(report) { return true }
    writeToStandardError("\(severity == .warning ? "warning" : "error"): \(diagnostic.renderedTree())\n")
    return false
  }

  /// Writes text to standard error, unbuffered.
  package static func writeToStandardError(_ text: String) {
    if let standardErrorCapture { return standardErrorCapture.receive(text) }
    var text = text
    // write(2) on descriptor 2 rather than the C `stderr` global, which is shared mutable state.
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
  }
}

// Test hooks: tests check what is reported without failing or writing anything for real. Both are
// task-locals, so they see only the calls of the task that sets them and of tasks it starts;
// reporting reads them only when something is reported.
extension IssueReporting {
  /// Where what a hook captures goes: a function, wrapped in a struct because a task-local of a
  /// function type crashes `withValue` with an async body in optimised builds (Swift 6.3, Linux).
  package struct Capture<Captured>: Sendable {
    package let receive: @Sendable (Captured) -> Void

    package init(_ receive: @escaping @Sendable (Captured) -> Void) {
      self.receive = receive
    }
  }

  /// Where reports go instead of the reporter and standard error, while it is set.
  @TaskLocal package static var capture: Capture<Report>?

  /// Where text for standard error goes instead, while it is set.
  @TaskLocal package static var standardErrorCapture: Capture<String>?

  /// Runs `body`, capturing what it reports instead of reporting it.
  ///
  /// - Returns: What `body` returned, and the reports it made, in order.
  package static func capturingReports<R>(_ body: () throws -> R) rethrows -> (result: R, reports: [Report]) {
    let reports = Lock<[Report]>.make([])
    let result = try $capture.withValue(Capture { report in reports.withLock { $0.append(report) } }) { try body() }
    return (result, reports.withLock { $0 })
  }

  /// Runs `body`, capturing what it and the tasks it starts report instead of reporting it.
  ///
  /// - Returns: What `body` returned, and the reports it made, in order.
  package static func capturingReports<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async rethrows -> (result: R, reports: [Report]) {
    let reports = Lock<[Report]>.make([])
    let result = try await $capture.withValue(Capture { report in reports.withLock { $0.append(report) } }) {
      try await body()
    }
    return (result, reports.withLock { $0 })
  }
}
