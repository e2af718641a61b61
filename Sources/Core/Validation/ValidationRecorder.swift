/// What validation branches resolve with: every request is checked against the real tables,
/// recorded, and answered with the requested feature's placeholder (or with what a test copy's
/// overrides give), so no other loader runs and nothing is cached. A request for a static feature
/// gets its registered value.
final class ValidationRecorder: FeatureOverrides, @unchecked Sendable {
  // Sendable: `inner` is immutable and Sendable; everything else is in `state`, a lock.

  /// A request a loader made.
  struct Request {
    /// The loader that made it.
    let from: Binding
    /// What serves it from the requesting branch; `nil` when nothing is registered.
    let to: Binding?
    let feature: any Feature.Type
    let site: SourceLocation
  }

  struct State {
    /// The loader being checked; requests made while it runs are its.
    var current: Binding?
    var requests: [Request] = []
    var problems: [any DiagnosticError] = []
  }

  /// A test copy's overrides, consulted first: what they patch is what a loader gets.
  private let inner: (any FeatureOverrides)?
  /// What validation was given: diagnostics made while validating read the places declared.
  let contexts: ValidationContexts
  let state = Lock.make(State())

  init(inner: (any FeatureOverrides)?, contexts: ValidationContexts) {
    self.inner = inner
    self.contexts = contexts
  }

  var resolvesPlaceholders: Bool { false }
  // Validation gives contexts with `contexts.use(_:for:)`, and reports what is missing as problems.
  var givesScopeContexts: Bool { false }

  func replaces(_ feature: any Feature.Type) -> Bool {
    inner?.replaces(feature) ?? false
  }

  func context<Scope: FeaturesScope>(for scope: Scope.Type) -> Scope.Context? {
    inner?.context(for: scope)
  }

  func instance<F: Feature>(of feature: F.Type, context: F.Context, in branch: Branch, at location: SourceLocation)
    -> F?
  {
    let entry = branch.table.entry(for: FeatureTable.key(feature))
    let served = entry?.binding.object
    let patched = inner?.instance(of: feature, context: context, in: branch, at: location)
    let undefined = served == nil && patched == nil && inner?.resolvesPlaceholders != true
    // Built outside the lock: it reads the branch's path.
    let problem = undefined ? FeatureUndefined(feature, in: branch, at: location) : nil
    state.withLock { state in
      guard let loader = state.current else { return }
      state.requests.append(Request(from: loader, to: served, feature: feature, site: location))
      if let problem { state.problems.append(problem) }
    }
    // A static feature is a value, with nothing in it to keep from running: the loader gets it.
    return patched ?? (served?.registration.payload as? Box<F>)?.value ?? F.placeholder
  }

  /// Runs `body` as the check of `loader`: what it requests is recorded as its requests.
  func checking<R>(_ loader: Binding, _ body: () async throws -> R) async rethrows -> R {
    state.withLock { $0.current = loader }
    defer { state.withLock { $0.current = nil } }
    return try await body()
  }

  func record(_ problem: any DiagnosticError) {
    state.withLock { $0.problems.append(problem) }
  }

  /// How many requests and problems are recorded: a mark to ``forget(since:)`` back to.
  var mark: (requests: Int, problems: Int) {
    state.withLock { ($0.requests.count, $0.problems.count) }
  }

  /// Forgets the requests and problems recorded since `mark`: what checking a scope in a place the
  /// app does not branch it found.
  func forget(since mark: (requests: Int, problems: Int)) {
    state.withLock { state in
      state.requests.removeSubrange(mark.requests...)
      state.problems.removeSubrange(mark.problems...)
    }
  }
}
