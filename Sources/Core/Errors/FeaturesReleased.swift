/// Features kept by an instance were used after their branch was released.
///
/// A loader's `features` do not keep their branch alive, so that cached instances can capture them
/// without leaking the branch; nor does a branch made through them, which fails too once the branch
/// above it is released. Keep the branch's `Features` while you use what was loaded from it.
///
/// ```
/// FeaturesReleased: the branch of these features was released
/// ├─ requested at: App/Greeter.swift:20
/// └─ fix: keep the Features of the branch (or of a branch below it) while instances loaded from it are in use
/// ```
public struct FeaturesReleased: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  /// - Parameter feature: The feature a refresh was asked to renew, if it was a refresh.
  init(at location: SourceLocation, refreshing feature: (any Any.Type)? = nil) {
    diagnostic = Diagnostic(
      kind: "FeaturesReleased",
      message: (feature.map { "cannot refresh \($0): " } ?? "") + "the branch of these features was released",
      location: location,
      fix: "keep the Features of the branch (or of a branch below it) while instances loaded from it are in use")
  }
}
