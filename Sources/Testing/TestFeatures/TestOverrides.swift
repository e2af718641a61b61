import Arbor
import ArborDiagnostics

/// What a test container changes in resolution: its patches, its scope contexts, and whether an
/// unregistered feature resolves to its placeholder.
///
/// One object per container, shared by every branch made from it (a branch inherits its parent's
/// overrides), so patches made through any branch apply to all of them. Nothing here is global:
/// two containers never share an object, which is what keeps parallel tests apart.
final class TestOverrides: FeatureOverrides {
  /// `true` for ``TestFeatures(file:line:)``; `false` for a copy of a real tree, whose registrations still load.
  let resolvesPlaceholders: Bool
  /// A test container takes scope contexts from the test (`use(context:for:)`).
  var givesScopeContexts: Bool { true }
  private let state: Lock<State>

  struct State {
    /// A `FeatureOverride<F>` per patched feature.
    var features: [ObjectIdentifier: any Sendable] = [:]
    /// The context given with `use(context:for:)`, per scope.
    var contexts: [ObjectIdentifier: any Sendable] = [:]
    /// The teardowns the container's branches ran, in order.
    var tornDown: [TornDown] = []
    /// The branch a copy of a tree was made at (``TestFeatures(_:file:line:)``), whose close closes
    /// the copied ancestors too: nothing else reaches them.
    weak var copiedLeaf: Branch?
  }

  init(resolvesPlaceholders: Bool, state: State = State()) {
    self.resolvesPlaceholders = resolvesPlaceholders
    self.state = Lock.make(state)
  }

  /// Makes `branch` the one whose close closes its copied ancestors too.
  func closesCopiedAncestors(from branch: Branch) {
    state.withLock { $0.copiedLeaf = branch }
  }

  func closesCopiedAncestors(of branch: Branch) -> Bool {
    state.withLock { $0.copiedLeaf === branch }
  }

  /// An independent copy: later patches to either do not reach the other.
  func copy() -> TestOverrides {
    TestOverrides(resolvesPlaceholders: resolvesPlaceholders, state: state.withLock { $0 })
  }

  func instance<F: Feature>(of feature: F.Type, context: F.Context, in branch: Branch, at location: SourceLocation)
    -> F?
  {
    guard let override = state.withLock({ $0.features[ObjectIdentifier(feature)] }) else { return nil }
    // Resolved outside the lock: a patch or a placeholder may itself use this container.
    return (override as! FeatureOverride<F>).instance(context: context)  // stored under F's identifier
  }

  func replaces(_ feature: any Feature.Type) -> Bool {
    state.withLock { ($0.features[ObjectIdentifier(feature)] as? any EveryRequestOverride)?.replacesEveryRequest }
      ?? false
  }

  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context? {
    state.withLock { $0.contexts[ObjectIdentifier(scope)] } as? Scope.Context
  }

  /// Changes the override of `feature`, starting from an empty one.
  func update<F: Feature>(_ feature: F.Type, _ change: (inout FeatureOverride<F>) -> Void) {
    state.withLock { state in
      let key = ObjectIdentifier(feature)
      var override = state.features[key].map { $0 as! FeatureOverride<F> } ?? FeatureOverride()
      change(&override)
      state.features[key] = override
    }
  }

  func use<Scope: FeaturesScope>(context: Scope.Context, for scope: Scope.Type) {
    state.withLock { $0.contexts[ObjectIdentifier(scope)] = context }
  }

  func tornDown(_ feature: any Feature.Type, implementation: String, in branch: ScopePath, failure: (any Error)?) {
    let record = TornDown(feature: feature, implementation: implementation, branch: branch.rendered, failure: failure)
    state.withLock { $0.tornDown.append(record) }
  }

  /// The teardowns run so far, in order.
  var tornDown: [TornDown] { state.withLock { $0.tornDown } }
}

/// An override, whatever its feature.
protocol EveryRequestOverride {
  /// Whether every request gets the override, so the feature's loader never runs: a replacement
  /// for every context, or patches (which apply to the placeholder).
  var replacesEveryRequest: Bool { get }
}

/// How a test container resolves one feature: a replacement instance (for every context, or for
/// some contexts only) and the patches applied on top, in the order they were made.
struct FeatureOverride<F: Feature>: EveryRequestOverride, Sendable {
  var instance: F?
  var contextual: [(matches: @Sendable (F.Context) -> Bool, instance: F)] = []
  var patches: [@Sendable (inout F) -> Void] = []

  var replacesEveryRequest: Bool { instance != nil || !patches.isEmpty }

  /// The instance for a request, or `nil` to resolve the feature as if it were not overridden.
  ///
  /// With patches but no replacement, the patches apply to the feature's placeholder, also in a copy
  /// of a real tree: a patched feature is always "its placeholder plus your patches", so the members
  /// a test did not patch report instead of silently running the real implementation.
  func instance(context: F.Context) -> F? {
    let replacement = contextual.last(where: { $0.matches(context) })?.instance ?? instance
    if replacement == nil, patches.isEmpty { return nil }
    var value = replacement ?? F.placeholder
    for patch in patches { patch(&value) }
    return value
  }
}
