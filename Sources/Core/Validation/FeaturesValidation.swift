/// What ``Features/validate(_:file:line:)`` found: every problem of the tree at once, notes on
/// loaders, and the graph of registrations and requests.
///
/// ```swift
/// let validation = await root.validate { contexts in
///   contexts.use(Session(user: "check"), for: SessionScope.self)
/// }
/// try validation.check()                  // throws FeaturesValidationFailed listing every problem
/// print(validation.graph.mermaid())
/// ```
public struct FeaturesValidation: Sendable {
  /// Every problem, each an Arbor diagnostic with its tree: undefined features, scope contexts a
  /// loader reads off its branch's path, cycles, registration conflicts, loaders that throw, and
  /// scopes left unchecked for want of a context. Empty for a sound tree.
  public let problems: [any DiagnosticError]
  /// Notes on loaders, not problems: those checked only in part (they called an unimplemented
  /// placeholder member, or take a context validation cannot invent), what a loader reported while
  /// checked, and the loaders whose reads of another scope's context made validation check their
  /// scope below that one.
  public let notes: [Note]
  /// Every registration and every request a loader made, by scope.
  public let graph: FeaturesGraph

  /// A note on a loader: what validation could not check of it, or where it checked it.
  public struct Note: Sendable, Hashable, CustomStringConvertible {
    /// The feature the loader loads: `Greeter`.
    public let feature: String
    /// The loader's name: `Greeter.live()`.
    public let implementation: String
    /// Where the loader is registered.
    public let location: SourceLocation
    /// What was checked: `checked up to its call of Clock.now`.
    public let text: String

    /// `Greeter.live() (App/Main.swift:12): checked up to its call of Clock.now`.
    public var description: String { "\(implementation) (\(location)): \(text)" }
  }

  /// Throws ``FeaturesValidationFailed`` when the tree has problems.
  ///
  /// - Throws: ``FeaturesValidationFailed``, whose diagnostic lists every problem.
  public func check() throws {
    if !problems.isEmpty { throw FeaturesValidationFailed(problems: problems, notes: notes) }
  }
}
