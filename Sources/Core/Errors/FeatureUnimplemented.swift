/// A placeholder member was called: the feature has no implementation for it here.
///
/// Throwing placeholder members throw it; all placeholder members report it, as a test failure
/// when a test is running (with `ArborTesting`), on standard error otherwise.
///
/// ```
/// FeatureUnimplemented: Unimplemented: Clock.now
/// ├─ placeholder at: App/Clock.swift:3
/// └─ fix: patch it in the test with features.patch(\Clock.now, with: ...),
///         or resolve Clock from a tree that registers an implementation
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
  package init(member: String, location: SourceLocation) {
    self.member = member
    self.location = location
    let feature = member.split(separator: ".").first.map(String.init) ?? member
    let keyPath = member.contains(".") ? "\\\(member)" : "\\\(member).member"
    diagnostic = Diagnostic(
      kind: "FeatureUnimplemented", message: "Unimplemented: \(member)", feature: feature,
      notes: [.init("placeholder at", location.description)],
      fix: "patch it in the test with features.patch(\(keyPath), with: ...),"
        + "\nor resolve \(feature) from a tree that registers an implementation")
  }
}
