/// Test containers and validation replace resolution through this hook; a tree without one never
/// consults it.
package protocol FeatureOverrides: AnyObject, Sendable {
  /// The instance a request made in `branch` at `location` gets instead of resolving, if any.
  func instance<F: Feature>(of feature: F.Type, context: F.Context, in branch: Branch, at location: SourceLocation)
    -> F?
  /// Whether every request for `feature` is answered by ``instance(of:context:in:at:)``, so that
  /// its loader never runs.
  func replaces(_ feature: any Feature.Type) -> Bool
  /// The context of a scope that no branch on the path carries, if the container provides one.
  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context?
  /// Whether a feature nobody registered resolves to its placeholder instead of failing.
  var resolvesPlaceholders: Bool { get }
  /// Told of every teardown a branch of the container ran as it closed, in order.
  func tornDown(_ feature: any Feature.Type, implementation: String, in branch: ScopePath, failure: (any Error)?)
  /// Whether a close of `branch` closes its ancestors too: the branch a test container copied a
  /// tree at, whose copied ancestors exist for it alone.
  func closesCopiedAncestors(of branch: Branch) -> Bool
  /// Whether the test may give a missing scope context here (`use(context:for:)`), so that a
  /// diagnostic for one says so first.
  var givesScopeContexts: Bool { get }
}

extension FeatureOverrides {
  /// Ignores teardowns: overrides that do not record them need not say so.
  package func tornDown(
    _ feature: any Feature.Type, implementation: String, in branch: ScopePath, failure: (any Error)?
  ) {}

  /// No branch closes its ancestors: overrides that do not copy trees need not say so.
  package func closesCopiedAncestors(of branch: Branch) -> Bool { false }
}
