/// One start of a branch: its scope's eager features loaded at once, each after the features it
/// requests, then its before-serving work in order; on a failure, the branch closed.
///
/// The loads are plain requests through the branch's features: a feature another eager feature
/// requests is loaded once, by whichever asks first, so each starts after what it needs, and
/// independent ones concurrently, with no graph to compute.
struct StartUp {
  let branch: Branch
  let features: Features
  let timeout: Duration?
  let site: SourceLocation
  /// The root's clock, which time limits run on.
  var clock: TreeRenewals { branch.definition.renewals }

  /// How a start ended: what ran, or the diagnostic of what failed.
  typealias Outcome = Result<StartEvent, FeaturesStartFailed>

  /// Runs the start.
  func run() async -> Outcome {
    let began = ContinuousClock.now
    let deadline = timeout.map { clock.now() + $0 }
    let eager = branch.definition.bindings.filter(\.lifecycle.isEager)
    var steps: [StartEvent.Step] = []
    // A load past its limit fails the start: the loads still running then (one that waits for it,
    // say) are not waited for either.
    let stop = TimeLimit.Stop()
    await withTaskGroup(of: (StartEvent.Step, timedOut: Bool).self) { group in
      for binding in eager {
        group.addTask { await load(binding, before: deadline, until: stop) }
      }
      for await (step, timedOut) in group {
        steps.append(step)
        if timedOut { stop.stop(because: "\(step.feature ?? step.name) passed its limit") }
      }
    }
    steps.sort { $0.start < $1.start }
    if steps.allSatisfy({ $0.failure == nil }) {
      for work in branch.definition.startWork {
        let step = await perform(work, before: deadline)
        steps.append(step)
        if step.failure != nil { break }
      }
    }
    let failures = steps.compactMap(\.failure)
    var failure: FeaturesStartFailed?
    if !failures.isEmpty {
      // A load that passed its limit may never end, and a close waits for the loads in flight:
      // then the close goes on in its task, and ends when they do.
      let waitsForTheClose = !failures.contains { $0.kind == FeaturesStartFailed.timedOutKind }
      failure = FeaturesStartFailed(
        failures, of: eager.count + branch.definition.startWork.count, in: branch.path,
        closing: await closeAfterFailure(waiting: waitsForTheClose), at: site)
    }
    let event = StartEvent(
      branchPath: branch.path, start: began, duration: .now - began, steps: steps, failure: failure?.diagnostic)
    branch.definition.observer?.started(event)
    return failure.map { .failure($0) } ?? .success(event)
  }

  /// Loads the eager feature of `binding`, within its time limit and what is left of the start's.
  ///
  /// - Returns: The step, and whether it passed its limit.
  private func load(_ binding: Binding, before deadline: Duration?, until stop: TimeLimit.Stop) async
    -> (StartEvent.Step, timedOut: Bool)
  {
    let registration = binding.registration
    let feature = "\(registration.feature)"
    let began = ContinuousClock.now
    func step(failure: Diagnostic?) -> StartEvent.Step {
      StartEvent.Step(
        name: registration.implementation, feature: feature, start: began, duration: .now - began, failure: failure)
    }
    switch registration.lifetime {
    case .cacheable: break
    case .static, .disposable, .cacheablePerContext:
      return (step(failure: FeaturesStartFailed.notEager(binding)), false)
    }
    let features = features
    let location = binding.site
    let request: @Sendable () async throws -> Void = {
      try await Self.request(registration.feature, from: features, at: location)
    }
    let limit = limit(binding.lifecycle.startTimeLimit, before: deadline)
    let implementation = Diagnostic.Implementation(name: registration.implementation, location: binding.site)
    switch await TimeLimit.run(within: limit, on: clock, until: stop, request) {
    case .finished(.success): return (step(failure: nil), false)
    case .finished(.failure(let error)): return (step(failure: Diagnostic(describing: error)), false)
    case .stopped(let reason):
      var failure = Diagnostic(
        kind: FeaturesStartFailed.timedOutKind, message: "\(feature) was still loading when \(reason)",
        path: ["start()", feature].map { Diagnostic.PathStep(feature: $0) },
        fix: "\(registration.implementation) may wait for what passed its limit: fix that one first")
      failure.implementation = implementation
      return (step(failure: failure), false)
    case .timedOut:
      let limit = limit ?? .zero  // only a limit passes
      let longer =
        binding.lifecycle.startTimeLimit == limit
        ? "give it a longer startTimeLimit" : "give the start a longer timeout"
      let failure = FeaturesStartFailed.timedOut(
        feature, path: ["start()", feature], limit: limit, implementation: implementation,
        fix: "find what \(registration.implementation) waits for, or \(longer)")
      return (step(failure: failure), true)
    }
  }

  /// Runs before-serving work, within its time limit and what is left of the start's.
  private func perform(_ work: StartWork, before deadline: Duration?) async -> StartEvent.Step {
    let name = "before serving (\(work.site))"
    let began = ContinuousClock.now
    let features = features
    let run: @Sendable () async throws -> Void = {
      try await LifecycleWork.$current.withValue(.beforeServing(work.site)) { try await work.run(features) }
    }
    let limit = limit(work.timeLimit, before: deadline)
    var failure: Diagnostic?
    switch await TimeLimit.run(within: limit, on: clock, run) {
    case .finished(.success): break
    case .finished(.failure(let error)): failure = Diagnostic(describing: error)
    case .timedOut, .stopped:
      failure = FeaturesStartFailed.timedOut(
        "the work before serving named at \(work.site)", path: ["start()", "before serving"], limit: limit ?? .zero,
        implementation: nil, fix: "find what the work waits for, or give it a longer time limit")
    }
    return StartEvent.Step(name: name, feature: nil, start: began, duration: .now - began, failure: failure)
  }

  /// Closes the branch after a failed start, so that what started is torn down.
  ///
  /// - Parameter waiting: Whether to wait for the close: not when a load passed its time limit.
  /// - Returns: What the close's teardowns threw, when waited for.
  private func closeAfterFailure(waiting: Bool) async -> TeardownFailed? {
    let closing = Task { [features, site] in try await features.close(file: site.fileID, line: site.line) }
    guard waiting else { return nil }
    do {
      try await closing.value
      return nil
    } catch {
      return error as? TeardownFailed
    }
  }

  /// The time a step may take: its own limit, bounded by what is left of the start's.
  private func limit(_ own: Duration?, before deadline: Duration?) -> Duration? {
    let left = deadline.map { max($0 - clock.now(), .zero) }
    switch (own, left) {
    case (nil, nil): return nil
    case (let own?, nil): return own
    case (nil, let left?): return left
    case (let own?, let left?): return min(own, left)
    }
  }

  /// Requests the eager cacheable `feature`, which takes no context, through `features`.
  private static func request<F: Feature>(_ feature: F.Type, from features: Features, at location: SourceLocation)
    async throws
  {
    // A cacheable without a context has `NoContext` (its lifetime says so).
    guard let context = NoContext() as? F.Context else { return }
    _ = try await features.instance(of: feature, context: context, file: location.fileID, line: location.line)
  }
}

extension StartUp {
  /// Starts `branch` once, however many callers ask: the first starts it in a task of its own (no
  /// caller's cancellation cuts it short), and every caller awaits its outcome.
  ///
  /// - Parameter features: The branch's features, which the start's loads request through.
  /// - Returns: The start that ran.
  static func start(
    _ branch: Branch, through features: Features, timeout: Duration?, at location: SourceLocation
  ) async throws -> StartEvent {
    // A start waits for loads and before-serving work: from inside lifecycle work, it could wait
    // for itself.
    if let work = LifecycleWork.running {
      throw LifecycleWorkReentered("start()", action: "start the branch", inside: work, at: location)
    }
    // One start runs, in a task of its own, which every caller awaits; one that ended answers with
    // its outcome, even once the branch closed (as a failed start closes it). A closed branch does
    // not begin one.
    let start = branch.state.withLock { state -> Task<Outcome, Never>? in
      if let start = state.start { return start }
      guard !branch.isClosed else { return nil }
      let startUp = StartUp(branch: branch, features: features, timeout: timeout, site: location)
      state.start = Task { await startUp.run() }
      return state.start
    }
    guard let start else { throw FeaturesClosed(.using("start()"), through: branch, requestedAt: location) }
    let outcome = await start.value
    let event = try outcome.get()
    // A close that raced the start tears down what it started: the branch does not serve.
    if branch.isClosed { throw FeaturesClosed(.using("start()"), through: branch, requestedAt: location) }
    return event
  }
}
