/// One start of a branch. Its loads are plain requests, so a shared feature loads once and each
/// after what it needs, with no graph to compute.
struct StartUp {
  let branch: Branch
  let features: Features
  let timeout: Duration?
  let site: SourceLocation
  /// Time limits run on the root's clock.
  var clock: TreeRenewals { branch.definition.renewals }

  typealias Outcome = Result<StartEvent, FeaturesStartFailed>

  func run() async -> Outcome {
    let began = ContinuousClock.now
    let deadline = timeout.map { clock.now() + $0 }
    let eager = branch.definition.bindings.filter(\.lifecycle.isEager)
    var steps: [StartEvent.Step] = []
    // A load past its limit fails the start: the loads still running (one waiting for it) too.
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
      // A load past its limit may never end, and a close waits for it: then nobody waits for the close.
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
    let (features, location) = (features, binding.site)
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

  /// Closes the branch after a failed start; returns what its teardowns threw, when `waiting`.
  private func closeAfterFailure(waiting: Bool) async -> TeardownFailed? {
    let closing = Task { [features, site] in try await features.close(file: site.fileID, line: site.line) }
    guard waiting else { return nil }
    do { try await closing.value } catch { return error as? TeardownFailed }
    return nil
  }

  /// The time a step may take: its own limit, bounded by what is left of the start's.
  private func limit(_ own: Duration?, before deadline: Duration?) -> Duration? {
    guard let left = deadline.map({ max($0 - clock.now(), .zero) }) else { return own }
    return own.map { min($0, left) } ?? left
  }

  /// Requests the eager `feature` through `features`.
  private static func request<F: Feature>(_ feature: F.Type, from features: Features, at location: SourceLocation)
    async throws
  {
    // A cacheable without a context has `NoContext` (its lifetime says so).
    guard let context = NoContext() as? F.Context else { return }
    _ = try await features.instance(of: feature, context: context, file: location.fileID, line: location.line)
  }
}

extension StartUp {
  /// Starts `branch` once, in a task of its own that no caller's cancellation cuts short.
  static func start(
    _ branch: Branch, through features: Features, timeout: Duration?, at location: SourceLocation
  ) async throws -> StartEvent {
    if let work = LifecycleWork.running {
      throw LifecycleWorkReentered("start()", action: "start the branch", inside: work, at: location)
    }
    // An ended start answers even once the branch closed (a failed one closes it).
    let start = branch.state.withLock { state -> Task<Outcome, Never>? in
      if let start = state.start { return start }
      guard !branch.isClosed else { return nil }
      let startUp = StartUp(branch: branch, features: features, timeout: timeout, site: location)
      state.start = Task { await startUp.run() }
      return state.start
    }
    guard let start else { throw FeaturesClosed(.using("start()"), through: branch, requestedAt: location) }
    let event = try await start.value.get()
    // A close that raced the start tears down what it started: the branch does not serve.
    if branch.isClosed { throw FeaturesClosed(.using("start()"), through: branch, requestedAt: location) }
    return event
  }
}
