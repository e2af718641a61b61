/// A placeholder member was called: the feature has no implementation for it here.
///
/// Throwing placeholder members throw it; the others report it, as a test failure when a test is
/// running (with `ArborTesting`), to the installed reporter or standard error otherwise. In a test,
/// a throwing member reports nothing itself: the error it throws, reaching the test, is the test's
/// one failure. Outside a test, it reports and throws, so a caller that swallows the error still
/// leaves a trace.
///
/// In a test, the fix is a patch:
///
/// ```
/// FeatureUnimplemented: Unimplemented: Clock.now
/// ├─ placeholder at: App/Clock.swift:3
/// └─ fix: patch it in the test with features.patch(\Clock.now, with: ...),
///         or resolve Clock from a tree that registers an implementation
/// ```
///
/// Outside a test, the tree is missing an implementation:
///
/// ```
/// FeatureUnimplemented: Unimplemented: Clock.now
/// ├─ placeholder at: App/Clock.swift:3
/// └─ fix: register an implementation of Clock with registry.use(...) in the tree it was resolved from,
///         or implement Clock.now in the one registered there
/// ```
public struct FeatureUnimplemented: DiagnosticError {
  /// The member that was called: `Clock.now`.
  public let member: String
  /// Where the placeholder was written.
  public let location: SourceLocation
  /// What was called, where its placeholder is, and how to fix it.
  public let diagnostic: Diagnostic

  /// Creates the error for a placeholder member.
  ///
  /// - Parameters:
  ///   - member: The member's name, `Type.member`.
  ///   - location: Where the placeholder was written.
  ///   - inTest: Whether a test is running: its fix is then a patch, else an implementation.
  package init(member: String, location: SourceLocation, inTest: Bool = IssueReporting.testIsRunning) {
    self.member = member
    self.location = location
    let feature = member.split(separator: ".").first.map(String.init) ?? member
    let keyPath = member.contains(".") ? "\\\(member)" : "\\\(member).member"
    let memberName = member.contains(".") ? member : "\(member).member"
    diagnostic = Diagnostic(
      kind: "FeatureUnimplemented", message: "Unimplemented: \(member)", feature: feature,
      notes: [.init("placeholder at", location.description)],
      fix: inTest
        ? "patch it in the test with features.patch(\(keyPath), with: ...),"
          + "\nor resolve \(feature) from a tree that registers an implementation"
        : "register an implementation of \(feature) with registry.use(...) in the tree it was resolved from,"
          + "\nor implement \(memberName) in the one registered there")
  }
}

extension FeatureUnimplemented {
  /// Told of every placeholder call that the task setting it (or a task it starts) makes, as the
  /// typed error, before the call is reported: validation notes the placeholder behaviour a
  /// loader relied on by its ``member``, never by a report's text.
  @TaskLocal package static var calls: IssueReporting.Capture<FeatureUnimplemented>?

  /// Tells ``calls`` of this placeholder call, then reports it through ``IssueReporting``, at the
  /// placeholder's site.
  ///
  /// - Parameter severity: A warning when the member returns its placeholder value, else a failure.
  func report(severity: IssueReporting.Severity) {
    Self.calls?.receive(self)
    // A test that takes the report reads the patch it needs, whatever this error was made with.
    let inTest = Self(member: member, location: location, inTest: true).diagnostic
    IssueReporting.report(diagnostic, inTest: inTest, severity: severity, at: location)
  }
}
