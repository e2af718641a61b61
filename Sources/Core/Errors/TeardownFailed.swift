/// Teardowns threw while a branch closed: ``Features/close(file:line:isolation:)`` ran every other one, then
/// threw this, listing each failure.
///
/// Each cause names the feature, its implementation and where that is registered, the branch that
/// cached the instance, and what the teardown threw. The branch is closed all the same: a close is
/// not tried again.
///
/// ```
/// TeardownFailed: 1 teardown failed while closing Root › SessionScope(Session(user: "ann"))
/// ├─ requested at: App/Main.swift:51
/// ├─ fix: handle the error in the teardown, or let it throw and read it here:
/// │       every other teardown ran, and the branch is closed
/// └─ cause: Offline: the network is down
///    ├─ scope: Root › SessionScope(Session(user: "ann"))
///    └─ torn down: Database (Database.live() at App/Database.swift:8, registered at App/Main.swift:14)
/// ```
public struct TeardownFailed: DiagnosticError {
  /// One teardown that threw.
  public struct Failure: Sendable {
    /// The feature whose instance was torn down.
    public let feature: any Feature.Type
    /// Its implementation: `Database.live()`.
    public let implementation: String
    /// Where the implementation was registered, if it was (a test container's `load` registers nothing).
    public let registeredAt: SourceLocation?
    /// The instance's context, for a cacheable with one.
    public let context: (any Sendable)?
    /// What the teardown threw.
    public let cause: any Error
    /// The branch that cached the instance.
    let branch: ScopePath
    let pending: PendingTeardown

    init(_ teardown: PendingTeardown, in branch: ScopePath, cause: any Error) {
      feature = teardown.feature
      implementation = teardown.registration.implementation
      registeredAt = teardown.binding?.site
      context = teardown.context
      self.cause = cause
      self.branch = branch
      pending = teardown
    }

    /// The failure as a cause: the teardown's error, with the instance it tore down.
    var diagnostic: Diagnostic {
      var diagnostic = Diagnostic(describing: cause)
      diagnostic.scope = branch.diagnosticSteps
      diagnostic.notes.append(.init("torn down", pending.described))
      return diagnostic
    }
  }

  /// Every teardown that threw, in the order they ran.
  public let failures: [Failure]
  /// Every failure, as causes of one diagnostic.
  public let diagnostic: Diagnostic

  init(_ failures: [Failure], closing branch: ScopePath, at location: SourceLocation) {
    self.failures = failures
    diagnostic = Diagnostic(
      kind: "TeardownFailed", message: "\(Self.count(failures)) failed while closing \(branch.rendered)",
      location: location,
      fix: "handle the error in the teardown, or let it throw and read it here:"
        + "\nevery other teardown ran, and the branch is closed",
      causes: failures.map(\.diagnostic))
  }

  /// Teardowns that threw while a renewal (a refresh, or an instance that expired) replaced the
  /// instances cached in `branch` and below.
  ///
  /// - Parameter location: Where `refresh` was called; `nil` for an instance that expired.
  init(_ failures: [Failure], renewing branch: ScopePath, at location: SourceLocation?) {
    self.failures = failures
    diagnostic = Diagnostic(
      kind: "TeardownFailed", message: "\(Self.count(failures)) failed while renewing in \(branch.rendered)",
      location: location,
      fix: "handle the error in the teardown, or let it throw and read it here:"
        + "\nevery other teardown ran, and the next requests load new instances",
      causes: failures.map(\.diagnostic))
  }

  private static func count(_ failures: [Failure]) -> String {
    failures.count == 1 ? "1 teardown" : "\(failures.count) teardowns"
  }
}
