/// One cached instance a renewal replaced: the feature, the implementation that loaded it, and the
/// branch that cached it.
///
/// ``Features/refresh(_:context:file:line:)`` returns them, dependents first and the refreshed
/// feature last, so an app can log what it renewed:
///
/// ```swift
/// for renewed in try await session.refresh(AuthToken.self) { logger.info("renewed \(renewed)") }
/// // renewed ApiClient (ApiClient.live()) in Root › SessionScope(Session(user: "ann"))
/// // renewed AuthToken (AuthToken.live()) in Root › SessionScope(Session(user: "ann"))
/// ```
public struct RenewedInstance: Sendable, CustomStringConvertible {
  let featureType: any Feature.Type
  private let implementationName: ImplementationName
  private let contextKey: ContextKey?
  private let branchPath: ScopePath

  /// - Parameter path: The path of the branch that cached it.
  init(_ forgotten: ForgottenInstance, path: ScopePath) {
    featureType = forgotten.registration.feature
    implementationName = forgotten.registration.implementationName
    contextKey = forgotten.context
    branchPath = path
  }

  /// The instance's context, for a cacheable with one.
  public var context: AnyHashable? { contextKey?.value }
  /// The feature: `AuthToken`.
  public var feature: String { String(describing: featureType) }
  /// The implementation that loaded the instance: `AuthToken.live()`.
  public var implementation: String { implementationName.text }
  /// The branch that cached the instance, root first, each scope with its context.
  public var scope: [Diagnostic.ScopeStep] { branchPath.diagnosticSteps }

  /// `AuthToken (AuthToken.live()) in Root › SessionScope(Session(user: "ann"))`, with the context
  /// of a cacheable that has one: `Account for 42 (Account.live()) in Root`.
  public var description: String {
    var text = feature
    if let context { text += " for \(context.base)" }
    return text + " (\(implementation)) in \(branchPath.rendered)"
  }
}
