import Arbor
import Testing

// A test that throws one of Arbor's errors fails with Swift Testing's "Caught error: ...", which
// shows the error's one-line description unless the error describes itself for tests. These
// conformances show the whole diagnostic there, the fix included, as a placeholder's report does.
// They live here, beside the import of Testing, so that Arbor itself never imports it.

extension DiagnosticError {
  /// The diagnostic's whole tree, as Swift Testing shows a caught error.
  public var testDescription: String { diagnostic.renderedTree() }
}

extension CircularDependency: CustomTestStringConvertible {}
extension CurrentFeaturesUndefined: CustomTestStringConvertible {}
extension FeatureLoadingFailed: CustomTestStringConvertible {}
extension FeatureRegistrationConflict: CustomTestStringConvertible {}
extension FeatureRequiresAwait: CustomTestStringConvertible {}
extension FeatureRequiresMainActor: CustomTestStringConvertible {}
extension FeatureNotRenewable: CustomTestStringConvertible {}
extension FeatureUndefined: CustomTestStringConvertible {}
extension FeatureUnimplemented: CustomTestStringConvertible {}
extension FeaturesClosed: CustomTestStringConvertible {}
extension FeaturesReleased: CustomTestStringConvertible {}
extension FeaturesScopeContextUnavailable: CustomTestStringConvertible {}
extension FeaturesScopeUnchecked: CustomTestStringConvertible {}
extension FeaturesScopeUndefined: CustomTestStringConvertible {}
extension FeaturesStartFailed: CustomTestStringConvertible {}
extension FeaturesValidationFailed: CustomTestStringConvertible {}
extension KeyedBranchesClosed: CustomTestStringConvertible {}
extension KeyedBranchesCycle: CustomTestStringConvertible {}
extension KeyedBranchesIdleTimeInvalid: CustomTestStringConvertible {}
extension KeyedBranchesMaximumCountInvalid: CustomTestStringConvertible {}
extension LifecycleWorkReentered: CustomTestStringConvertible {}
extension ResolvedContextMissing: CustomTestStringConvertible {}
extension TeardownFailed: CustomTestStringConvertible {}
extension TeardownSkipped: CustomTestStringConvertible {}
extension TeardownTimedOut: CustomTestStringConvertible {}
extension TestFeaturesMisuse: CustomTestStringConvertible {}
