/// A request for a cacheable with a context whose context is not equal to itself (a `Double` that
/// is NaN, or a type whose `==` is broken): the instance is cached by its context, so it could never
/// be found again, and every request would load, and keep, another.
///
/// The request fails with ``FeatureLoadingFailed``, whose cause this is; nothing is loaded.
///
/// ```
/// FeatureContextNotEqualToItself: the context nan of Quote is not equal to itself
/// ├─ requested at: App/Prices.swift:12
/// └─ fix: give Quote a context whose == holds of equal values; an instance is cached by its
///         context, and this one could never be found again
/// ```
package struct FeatureContextNotEqualToItself: DiagnosticError {
  /// What was requested, where, and how to fix it.
  package let diagnostic: Diagnostic

  init<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) {
    diagnostic = Diagnostic(
      kind: "FeatureContextNotEqualToItself",
      message: "the context \(context) of \(feature) is not equal to itself",
      location: location,
      fix: "give \(feature) a context whose == holds of equal values; an instance is cached by its"
        + "\ncontext, and this one could never be found again")
  }
}
