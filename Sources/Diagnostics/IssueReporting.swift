#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where Arbor reports what it cannot throw: a placeholder member called, a feature registered
/// twice, a branch released before its teardowns ran, a teardown that failed after the body of a
/// `withBranch` failed.
///
/// The reporter is yours. Install one at start-up to route reports where the rest of your
/// diagnostics go (a logger, a crash reporter); without one, reports are written to standard error.
/// In a test process that links `ArborTesting`, every report made while a test runs becomes that
/// test's failure (Swift Testing or XCTest) before your reporter sees it, automatically, from the
/// first test on. A report never stops the process: the code that reported
/// goes on as safely as it can (an unimplemented member returns its placeholder value, throws
/// ``FeatureUnimplemented`` or returns nothing).
///
/// ```swift
/// IssueReporting.install { report in
///   logger.log(level: report.severity == .warning ? .warning : .error, "\(report.diagnostic.summary())")
/// }
/// ```
public enum IssueReporting {
  /// How serious a reported diagnostic is.
  public enum Severity: Sendable, Hashable {
    /// The caller goes on with a placeholder value: something is missing, and may not matter.
    case warning
    /// Something went wrong: a member with no value to return did nothing, a registration
    /// conflicts, a teardown never ran or failed.
    case failure
  }

  /// A diagnostic as it is reported: its kind, how serious it is, and the source site it is
  /// attributed to.
  public struct Report: Sendable, Hashable {
    /// What went wrong.
    public var diagnostic: Diagnostic
    /// A warning (the caller goes on with a placeholder value) or a failure.
    public var severity: Severity
    /// Where the mistake is written: a placeholder's site, else where the failing request was made.
    public var site: SourceLocation?

    /// The kind of the diagnostic: `FeatureUnimplemented`, `TeardownSkipped`, ...
    public var kind: String { diagnostic.kind }

    /// A report; `site` defaults to where the diagnostic says the failing request was made.
    ///
    /// - Parameters:
    ///   - diagnostic: What went wrong.
    ///   - severity: A warning or a failure.
    ///   - site: Where it is attributed; `nil` for the diagnostic's own location.
    public init(_ diagnostic: Diagnostic, severity: Severity, site: SourceLocation? = nil) {
      self.diagnostic = diagnostic
      self.severity = severity
      self.site = site ?? diagnostic.location
    }
  }

  /// Receives every report made outside a test.
  public typealias Reporter = @Sendable (Report) -> Void

  /// A test framework's reporter: returns `true` when it took the report (a test was running).
  package typealias TestReporter = @Sendable (Report) -> Bool

  // Written rarely (at start-up, once per process by the test-support module), read on the rare
  // reporting path only.
  private static let reporters = Lock<(test: TestReporter?, user: Reporter?, testIsRunning: (@Sendable () -> Bool)?)>
    .make((nil, nil, nil))

  /// Installs your reporter, replacing the one installed before; `nil` goes back to standard error.
  ///
  /// In a test, the test framework's reporter takes a report first (`ArborTesting` records it as a
  /// test failure); yours receives what no running test took.
  ///
  /// ```swift
  /// IssueReporting.install { report in crashReporter.record(report.diagnostic.json()) }
  /// ```
  ///
  /// - Parameter reporter: Receives each report, on the thread that made it.
  public static func install(_ reporter: Reporter?) {
    reporters.withLock { $0.user = reporter }
  }

  /// Installs a test framework's reporter; a later call replaces the earlier one.
  ///
  /// - Parameters:
  ///   - reporter: Takes a report when a test is running.
  ///   - isRunning: Whether a test is running for the calling task: one that records an error thrown
  ///     into it as its failure.
  package static func installTestReporter(
    _ reporter: @escaping TestReporter, isRunning: @escaping @Sendable () -> Bool = { false }
  ) {
    reporters.withLock {
      $0.test = reporter; $0.testIsRunning = isRunning
    }
  }

  /// Whether a test is running for the calling task (and no test hook captures reports): a test
  /// records an error thrown into it, so a placeholder that throws leaves its report to the test.
  package static var testIsRunning: Bool {
    guard capture == nil, let isRunning = reporters.withLock({ $0.testIsRunning }) else { return false }
    return isRunning()
  }

  /// Reports a diagnostic: to a running test, else to the installed reporter, else to standard
  /// error.
  ///
  /// - Parameters:
  ///   - diagnostic: What went wrong.
  ///   - inTest: What went wrong as a running test reads it, when that differs (a fix that patches
  ///     the test); `nil` for `diagnostic`.
  ///   - severity: A warning or a failure.
  ///   - site: Where a test failure is attributed; `nil` for the diagnostic's own location.
  /// - Returns: `true` when a test (or a test hook) took it.
  @discardableResult
  package static func report(
    _ diagnostic: Diagnostic, inTest: Diagnostic? = nil, severity: Severity, at site: SourceLocation? = nil
  ) -> Bool {
    let report = Report(diagnostic, severity: severity, site: site)
    if let capture {
      capture.receive(report)
      return true
    }
    let (test, user) = reporters.withLock { ($0.test, $0.user) }
    if let test, test(inTest.map { Report($0, severity: severity, site: site) } ?? report) { return true }
    if let user {
      user(report)
      return false
    }
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
