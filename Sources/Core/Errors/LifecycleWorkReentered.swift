/// A `refresh` or a `start` was called from lifecycle work: a loader, a teardown, a before-serving
/// work or the making of a keyed branch.
///
/// Lifecycle work never waits for lifecycle work: a refresh waits for loads and teardowns, and a
/// start for loads and before-serving work, so one made from inside such work could wait for
/// itself. It is refused at once instead, and nothing was renewed or started.
///
/// ```
/// LifecycleWorkReentered: refresh(AuthToken) cannot run inside the teardown of Client (Client.live() at App/Client.swift:8, registered at App/Main.swift:12)
/// ├─ requested at: App/Client.swift:20
/// └─ fix: refresh AuthToken after that work ends, or from a task outside it: lifecycle work (a loader, a teardown,
///         a before-serving work, a keyed branch's making) never waits for a refresh or a start
/// ```
public struct LifecycleWorkReentered: DiagnosticError {
  /// What failed, where, and how to fix it.
  public let diagnostic: Diagnostic

  /// The error of `call` (`refresh(AuthToken)`, `start()`), made at `location` inside `work`.
  ///
  /// - Parameter action: What the fix asks to do later: `refresh AuthToken`, `start the branch`.
  init(_ call: String, action: String, inside work: LifecycleWork, at location: SourceLocation) {
    diagnostic = Diagnostic(
      kind: "LifecycleWorkReentered",
      message: "\(call) cannot run inside \(work.described)",
      location: location,
      fix:
        "\(action) after that work ends, or from a task outside it: lifecycle work (a loader, a teardown,\n"
        + "a before-serving work, a keyed branch's making) never waits for a refresh or a start")
  }
}
