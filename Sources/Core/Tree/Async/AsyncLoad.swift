/// An async load in flight: the task that runs it, and the requests suspended until it ends.
final class AsyncLoad<F: Feature>: AsyncLoadNode, @unchecked Sendable {
  // Sendable: all mutable state is in `state`, a lock.
  private struct State {
    var outcome: Result<F, any Error>?
    var waiters: [Int: CheckedContinuation<F, any Error>] = [:]
    var nextWaiter = 0
    /// Closes of the branch, suspended until the load ends; never cancelled.
    var closes: [CheckedContinuation<Void, Never>] = []
    /// The branch the load runs in, let go of when it ends: tasks the loader starts keep this load
    /// on their path, and must not keep the branch alive.
    var branch: Branch?
    /// The cached instances the load received from its requests.
    var dependencies: [Dependency] = []
    /// The instance one of its requests found expired and renewed.
    var renewedByRequest: RenewedByRequest?
  }

  private let state: Lock<State>

  /// A load of `step` in `branch`, requested along `path`.
  init(step: LoadStep?, path: AsyncFrame?, in branch: Branch) {
    state = Lock.make(State(branch: branch))
    super.init(step: step, path: path)
  }

  override var isFinished: Bool { state.withLock { $0.outcome != nil } }

  override var branch: Branch? { state.withLock { $0.branch } }

  /// Ends the load: every suspended request resumes with `outcome`, and later ones get it at once.
  func finish(_ outcome: Result<F, any Error>) {
    let (waiters, closes) = state.withLock { state in
      state.outcome = outcome
      state.branch = nil
      defer { (state.waiters, state.closes) = ([:], []) }
      return (state.waiters.values, state.closes)
    }
    for waiter in waiters { waiter.resume(with: outcome) }
    for close in closes { close.resume() }
  }

  override func record(_ dependency: Dependency) -> Bool {
    state.withLock { state in
      state.dependencies.append(state.renewedByRequest?.adjusting(dependency) ?? dependency)
    }
    return true
  }

  override func note(_ renewed: RenewedByRequest) -> Bool {
    state.withLock { $0.renewedByRequest = renewed }
    return true
  }

  /// The cached instances the load received, for its branch to record when it caches the instance.
  var dependencies: [Dependency] { state.withLock { $0.dependencies } }

  override func ended() async {
    await state.suspend(until: { $0.outcome != nil }, waitingIn: \.closes)
  }

  override var waits: (requests: Int, closes: Int) { state.withLock { ($0.waiters.count, $0.closes.count) } }

  /// Suspends until the load ends. Cancelling the waiting task ends only its wait, with
  /// `CancellationError`: the load goes on for the others and is cached when it succeeds.
  func value() async throws -> F {
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let ready: Result<F, any Error>? = state.withLock { state in
          if let outcome = state.outcome { return outcome }
          if Task.isCancelled { return .failure(CancellationError()) }
          state.waiters[id] = continuation
          return nil
        }
        if let ready { continuation.resume(with: ready) }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
    }
  }
}

extension AsyncLoad {
  /// Starts a load that does not go through `branch`'s table (a test container's
  /// `features.load(...)`) as one of its loads in flight: a close that starts meanwhile waits for
  /// it, then tears down what it loaded.
  ///
  /// - Throws: ``FeaturesClosed`` once the branch started closing.
  static func outsideTable(in branch: Branch, at location: SourceLocation) throws -> AsyncLoad<F> {
    let load = AsyncLoad<F>(step: nil, path: nil, in: branch)
    let key = LoadKey(outsideLoad: load)
    let claim = branch.state.withLock { $0.loads.claim(key, isOpen: !branch.isClosed, isCached: false) { load } }
    guard case .own = claim else { throw FeaturesClosed(.resolving(F.self), through: branch, requestedAt: location) }
    return load
  }

  /// Ends a load ``outsideTable(in:at:)`` started in `branch`, first recording the teardown of
  /// `registration`, if it has one, for what it loaded.
  func endOutsideTable(in branch: Branch, _ outcome: Result<F, any Error>, tornDownBy registration: Registration?) {
    if case .success(let instance) = outcome, let registration,
      let teardown = PendingTeardown(of: instance, loadedBy: registration)
    {
      teardown.record(in: branch)
    }
    _ = branch.state.withLock { $0.loads.finish(LoadKey(outsideLoad: self)) }
    finish(outcome)
  }
}
