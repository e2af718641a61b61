/// A loader, a teardown, a before-serving work, or a keyed branch's making. **Lifecycle work never
/// waits for lifecycle work**, so only loads wait for loads (``WaitGraph``); what each call answers
/// inside it is tabled in `Docs/Architecture.md`.
enum LifecycleWork: Sendable {
  case loader(any Feature.Type)
  case teardown(any Feature.Type, Registration, Binding?)  // a few references: bound per teardown
  case beforeServing(SourceLocation)
  case making(String)  // described as it starts: small to copy

  /// The innermost but for a loader with a frame; tasks started inside inherit it.
  @TaskLocal static var current: LifecycleWork?

  /// The making of `scope`'s branch for `key`: `the making of the SessionScope branch for "ann"`.
  static func making(of scope: any FeaturesScope.Type, for key: any Sendable) -> LifecycleWork {
    .making("the making of the \(scope.name) branch for \(String(reflecting: key))")
  }

  /// The lifecycle work the current task or thread runs, if any: a loader before the work around it.
  static var running: LifecycleWork? {
    if let frame = LoadingThread.current.top { return .loader(frame.pointee.feature) }
    if let frame = AsyncFrame.currentIfAny { return .loader(frame.step.feature) }
    return current
  }

  /// How diagnostics name it: `the teardown of Client (Client.live() at App/Client.swift:8)`.
  var described: String {
    switch self {
    case .loader(let feature): "the loader of \(feature)"
    case .teardown(let feature, let registration, let binding):
      "the teardown of \(PendingTeardown.describe(feature, context: nil, registration, binding))"
    case .beforeServing(let site): "the work before serving named at \(site)"
    case .making(let described): described
    }
  }

  /// A task nobody cancels (a teardown never starts cancelled), outside the caller's load path.
  static func detachedFromLoads<R: Sendable>(_ body: sending @escaping () async -> R) -> Task<R, Never> {
    Task {
      guard AsyncFrame.currentIfAny != nil else { return await body() }
      return await AsyncFrame.$current.withValue(nil) { await body() }
    }
  }
}
