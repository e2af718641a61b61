extension IssueReporting {
  /// Reports a diagnostic that an integration package cannot throw (a configuration value that does
  /// not parse, found by a reload): to a running test, else to the installed reporter, else to
  /// standard error, as Arbor's own reports go.
  ///
  /// - Parameters:
  ///   - diagnostic: What went wrong.
  ///   - severity: A warning or a failure.
  /// - Returns: `true` when a test (or a test hook) took it.
  @_spi(Integrations)
  @discardableResult
  public static func report(fromIntegration diagnostic: Diagnostic, severity: Severity) -> Bool {
    report(diagnostic, severity: severity)
  }
}
