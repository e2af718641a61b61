import ArborDiagnostics

/// Where a branch is: its scope and context, and the path of its ancestors up to the root.
///
/// Immutable and shared: a branch's path is its parent's path with one more step.
package final class ScopePath: Sendable {
  /// The scope of this step.
  package let scope: any FeaturesScope.Type
  /// The branch's context, as given to `branch(_:context:)`.
  package let context: any Sendable
  /// The path of the parent branch; `nil` at the root.
  package let parent: ScopePath?

  /// The path of a root branch.
  package init() {
    self.scope = RootFeaturesScope.self
    self.context = ()
    self.parent = nil
  }

  /// The path of a branch of `scope` below `parent`.
  package init<Scope: FeaturesScope>(_ scope: Scope.Type, context: Scope.Context, parent: ScopePath) {
    self.scope = scope
    self.context = context
    self.parent = parent
  }

  /// The steps from the root to here.
  package var steps: [ScopePath] {
    var steps: [ScopePath] = []
    var step: ScopePath? = self
    while let current = step {
      steps.append(current)
      step = current.parent
    }
    return steps.reversed()
  }

  /// The nearest step (this one or an ancestor) of `scope`.
  package func nearest<Scope: FeaturesScope>(_ scope: Scope.Type) -> ScopePath? {
    var step: ScopePath? = self
    while let current = step {
      if current.scope == scope { return current }
      step = current.parent
    }
    return nil
  }

  /// The context of the nearest branch of `scope`, or `nil` if this path has none.
  package func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context? {
    nearest(scope).map { $0.context as! Scope.Context }  // a step of Scope always holds a Scope.Context
  }

  /// The path for diagnostics: each scope's name, with its context unless that is `Void`.
  package var diagnosticSteps: [Diagnostic.ScopeStep] {
    steps.map { step in
      Diagnostic.ScopeStep(
        name: step.scope.name,
        context: step.context is Void ? nil : String(describing: step.context)
      )
    }
  }

  /// `Root › SessionScope(Session(user: "ann"))`.
  package var rendered: String { Diagnostic.render(scope: diagnosticSteps) }
}
