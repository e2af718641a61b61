/// One request for `F` that may run an async loader: the branch it is made through, its context
/// and its site, and how it reaches its instance (read where it is cached, loaded exactly once, or,
/// for a disposable, loaded in the requester's task).
///
/// A cacheable's async load runs in a task of its own, claimed in the branch's ``LoadTable`` as
/// every load with a key is; each request, the first included, waits for its outcome.
struct AsyncRequest<F: Feature>: @unchecked Sendable {
  // Sendable: immutable; the branch is `Sendable`, and so are contexts.
  let branch: Branch
  let context: F.Context
  let location: SourceLocation

  init(_ feature: F.Type, context: F.Context, in branch: Branch, at location: SourceLocation) {
    self.branch = branch
    self.context = context
    self.location = location
  }

  /// Runs async loaders, and main-actor loaders on the main actor; anything else resolves as the
  /// synchronous request does.
  func resolve() async throws -> F {
    if branch.isClosed { throw FeaturesClosed(.resolving(F.self), through: branch, requestedAt: location) }
    if let overrides = branch.overrides,
      let instance = overrides.instance(of: F.self, context: context, in: branch, at: location)
    {
      return instance
    }
    guard let entry = branch.definition.table.entry(for: FeatureTable.key(F.self)),
      case .serves(let lifetime) = entry.kind, entry.isAsync || entry.loadsOnMainActor
    else { return try branch.resolve(F.self, context: context, at: location) }
    if entry.loadsOnMainActor { return try await resolveOnMainActor(entry: entry) }
    switch lifetime {
    case .cacheable, .cacheablePerContext:
      let owner = AsyncRequest(F.self, context: context, in: branch.ancestor(entry.depth), at: location)
      return try await owner.resolveCached(entry: entry)
    case .disposable:
      return try await load(entry: entry, frame: nil)
    case .static:  // a value, never loaded: registered as synchronous
      return try branch.resolve(F.self, context: context, at: location)
    }
  }

  /// Resolves a feature whose synchronous loader runs on the main actor: as the synchronous request
  /// does, on the main actor. A request made there resolves in place; one made elsewhere reads a
  /// cached instance where it is, and otherwise hops to the main actor, where every load of the
  /// feature runs, one after the other: the first caches it, the others find it.
  private func resolveOnMainActor(entry: FeatureTable.Entry) async throws -> F {
    if MainQueue.isCurrent() { return try branch.resolve(F.self, context: context, at: location) }
    if let instance = KeyedLoad<F>.instanceWithoutLock(context, entry: entry, in: branch.ancestor(entry.depth)) {
      return instance
    }
    let (branch, context, location) = (self.branch, self.context, self.location)
    return try await MainActor.run { try branch.resolve(F.self, context: context, at: location) }
  }

  /// Runs the async loader of `entry` with its frame on the task's path: `frame`, or, when `nil`,
  /// a frame of the task's own path (a disposable's, part of the load that requested it).
  func load(entry: FeatureTable.Entry, frame given: AsyncFrame?) async throws -> F {
    let binding = entry.binding.object
    let frame: AsyncFrame
    if let given {
      frame = given
    } else {
      let path = try checkedPath()
      let step = self.step
      // A disposable is part of the load that requested it: its waits are that load's waits.
      frame = AsyncFrame(step: step, parent: path, load: path?.load ?? AsyncLoadNode(step: step, path: path))
    }
    let loader = binding.registration.payload as! AsyncLoader<F>  // an async registration holds one
    let observation =
      branch.definition.isObserved ? LoadObservation(F.self, binding: binding, in: branch, at: location) : nil
    do {
      AsyncFrame.willSetCurrent()
      let instance = try await AsyncFrame.$current.withValue(frame) {
        let features = branch.loaderFeatures
        // As for synchronous loaders: never the requester's current features, only these.
        guard Features.hasCurrentInTask else { return try await loader.load(context, features) }
        return try await Features.$currentInTask.withValue(features) { try await loader.load(context, features) }
      }
      observation?.end(failure: nil)
      return instance
    } catch {
      let failure = wrapped(error, binding: binding, frame: frame)
      observation?.end(failure: failure)
      throw failure
    }
  }

  /// This request as a step of a resolution path.
  private var step: LoadStep {
    LoadStep(feature: F.self, branch: ObjectIdentifier(branch), context: context, location: location)
  }

  /// What an async loader's error becomes for its requester.
  private func wrapped(_ cause: any Error, binding: Binding, frame: AsyncFrame) -> any Error {
    // A cycle already names the whole loop.
    if cause is CircularDependency { return cause }
    // A disposable loads in its requester's task: cancelling the requester ends its request with
    // `CancellationError`, as it ends a wait for a cacheable (whose load runs in a task of its own).
    if cause is CancellationError, Task.isCancelled { return cause }
    return FeatureLoadingFailed(
      F.self, binding: binding, cause: cause, in: branch, path: frame.parent?.frames ?? [], at: location)
  }

  /// The task's path, after checking that it is not already loading this feature in this branch.
  private func checkedPath() throws -> AsyncFrame? {
    if let cycle = AsyncFrame.cycle(F.self, context: context, in: branch, at: location) { throw cycle }
    return AsyncFrame.current
  }

  /// Resolves a cacheable with an async loader, cached in this request's branch: read where it is
  /// cached, or loaded once.
  private func resolveCached(entry: FeatureTable.Entry) async throws -> F {
    if let instance = KeyedLoad<F>.instanceWithoutLock(context, entry: entry, in: branch) { return instance }
    let keyed = KeyedLoad(F.self, context: context, entry: entry, in: branch)
    if let instance = try keyed.multitonInstance(at: location) { return instance }
    let path = try checkedPath()
    let step = self.step
    var expired = false
    var instance: F?
    let claim = branch.state.withLock { state in
      let isOpen = !branch.isClosed
      if isOpen { instance = keyed.cached(in: &state, expired: &expired) }
      return state.loads.claim(keyed.key, isOpen: isOpen, isCached: instance != nil) {
        AsyncLoad<F>(step: step, path: path, in: branch)
      }
    }
    // The lookup let an expired instance go: its dependents go now, before a new one loads.
    if expired { Renewal.renewExpired(keyed.key, in: branch) }
    switch claim {
    case .cached:
      return instance!
    case .refused:
      throw FeaturesClosed(.resolving(F.self), through: branch, requestedAt: location)
    case .own(let started):
      let load = UncountedReference.cast(started, to: AsyncLoad<F>.self)
      start(load, caching: keyed, step: step, path: path)
      return try await value(of: load, for: path?.load, entry: entry)
    case .join(let load):
      return try await value(of: UncountedReference.cast(load, to: AsyncLoad<F>.self), for: path?.load, entry: entry)
    }
  }

  /// Runs `load`, which this request claimed under `keyed`'s key, in a task of its own, so that no
  /// requester's cancellation cancels a load that others wait for; caches what it loads with the
  /// instances it received, and finishes it in the table, in one critical section.
  private func start(_ load: AsyncLoad<F>, caching keyed: KeyedLoad<F>, step: LoadStep, path: AsyncFrame?) {
    let frame = AsyncFrame(step: step, parent: path, load: load)
    // The task holds the branch, so that its loader's features still find it if every requester
    // has gone and dropped it; a tethered branch's ancestors too: this request holds them, so the
    // holds are granted.
    branch.anchor.borrow { $0.hold() }
    let tethers = branch.tether?.holdTethers()
    Task {
      defer {
        withExtendedLifetime(tethers) {}
        branch.anchor.borrow { $0.release() }
      }
      let outcome: Result<F, any Error>
      do {
        let instance = try await self.load(entry: keyed.entry, frame: frame)
        branch.makePathIfTethered()
        branch.state.withLock { state in
          keyed.cache(instance, dependencies: load.dependencies, in: &state)
          state.loads.finish(keyed.key)
        }
        outcome = .success(instance)
      } catch {
        _ = branch.state.withLock { $0.loads.finish(keyed.key) }
        outcome = .failure(error)
      }
      load.finish(outcome)
    }
  }

  /// Waits for a load; when the requester is itself a load, records the wait so that loads
  /// waiting for each other fail instead of hanging.
  ///
  /// Every request, the one that started the load included, gets a failure with its own site and
  /// path; the cause is the load's.
  private func value(of load: AsyncLoad<F>, for waiter: AsyncLoadNode?, entry: FeatureTable.Entry) async throws -> F {
    let outcome: Result<F, LoadFailed>
    if let waiter {
      switch try await waiter.wait(for: load, { await Self.outcome(of: load) }) {
      case .success(let ended): outcome = ended
      case .failure(let loop):
        throw CircularDependency(
          loop.frames + LoadingThread.currentPath, closingWith: F.self, in: branch, at: location)
      }
    } else {
      outcome = await Self.outcome(of: load)
    }
    switch outcome {
    case .success(let instance):
      return instance
    case .failure(.cancelled(let error)):
      throw error
    case .failure(.loading(let failure)):
      throw FeatureLoadingFailed.waitedFor(
        F.self, binding: entry.binding.object, failure: failure, in: branch, path: LoadingThread.currentPath,
        at: location)
    }
  }

  /// Why a wait for an async load ended without an instance: the waiting task was cancelled (its
  /// own error, thrown as it is), or the load failed (shared by every waiter).
  private enum LoadFailed: Error {
    case cancelled(any Error)
    case loading(any Error)
  }

  private static func outcome(of load: AsyncLoad<F>) async -> Result<F, LoadFailed> {
    do {
      return .success(try await load.value())
    } catch let error as CancellationError {
      return .failure(.cancelled(error))
    } catch {
      return .failure(.loading(error))
    }
  }
}
