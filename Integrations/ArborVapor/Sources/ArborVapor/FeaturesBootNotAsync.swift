import Arbor

/// An application with a features tree was booted synchronously (`app.boot()`, or
/// `app.testing()` before any asynchronous boot), so the tree could not be validated before serving.
///
/// ```
/// FeaturesBootNotAsync: the features tree of Root cannot be validated by a synchronous boot
/// └─ fix: make the application with `try await Application.make()` and run it with
///         `try await app.execute()`; in tests, call `try await app.asyncBoot()` before `app.testing()`
/// ```
public struct FeaturesBootNotAsync: DiagnosticError {
  /// What failed and how to fix it.
  public let diagnostic: Diagnostic

  /// - Parameter root: The tree's root.
  init(root: Features) {
    self.diagnostic = Diagnostic(
      kind: "FeaturesBootNotAsync",
      message: "the features tree of \(root) cannot be validated by a synchronous boot",
      fix: "make the application with `try await Application.make()` and run it with"
        + "\n`try await app.execute()`; in tests, call `try await app.asyncBoot()` before `app.testing()`"
    )
  }
}
