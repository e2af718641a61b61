/// The key of an async load in flight in a branch: the feature, and the context for multitons.
struct AsyncLoadKey: Hashable, Sendable {
  let feature: ObjectIdentifier
  let context: ContextKey?
}

/// One feature being loaded asynchronously: a frame of a task's resolution path.
///
/// Async loaders may resume on any thread, so their path cannot live on a thread's stack: each
/// load's task carries it as a task-local, inherited by the tasks its loader starts.
final class AsyncFrame: Sendable {
  let feature: any Feature.Type
  let branch: ObjectIdentifier
  let context: any Sendable
  let location: SourceLocation
  let parent: AsyncFrame?
  /// The load this frame runs, for finding loads that wait for each other.
  let load: AsyncLoadNode

  init(
    feature: any Feature.Type, branch: ObjectIdentifier, context: any Sendable, location: SourceLocation,
    parent: AsyncFrame?, load: AsyncLoadNode
  ) {
    self.feature = feature
    self.branch = branch
    self.context = context
    self.location = location
    self.parent = parent
    self.load = load
  }

  /// The task's async path: the frames of the loads it runs inside, outermost first.
  @TaskLocal static var current: AsyncFrame?

  /// The frames from the outermost load to this one.
  var frames: [LoadFrame] {
    var frames: [LoadFrame] = []
    var frame: AsyncFrame? = self
    while let current = frame {
      frames.append(
        LoadFrame(
          feature: current.feature, branch: current.branch, context: current.context, location: current.location,
          parent: nil))
      frame = current.parent
    }
    return frames.reversed()
  }
}

extension LoadingThread {
  /// The resolution path of the current request: the task's async loads, then this thread's.
  static var currentPath: [LoadFrame] {
    (AsyncFrame.current?.frames ?? []) + current.frames
  }
}

/// What a request finds when it asks for an async load.
enum AsyncClaim<F: Feature> {
  case loaded(F)
  case join(AsyncLoad<F>)
  case own(AsyncLoad<F>)
}

/// What loads waiting for each other share, whatever feature they load.
class AsyncLoadNode: @unchecked Sendable {
  // Sendable: immutable.
  /// The load's own step and the path that requested it; turned into frames only on failure.
  private let step: LoadFrame?
  private let path: AsyncFrame?

  init(step: LoadFrame?, path: AsyncFrame?) {
    self.step = step
    self.path = path
  }

  /// The resolution path of the load, for the diagnostic of a loop through it.
  var frames: [LoadFrame] { (path?.frames ?? []) + (step.map { [$0] } ?? []) }

  /// Which load each load waits for.
  static let waits = Lock<[ObjectIdentifier: AsyncLoadNode]>.make([:])
}

/// An async load in flight: the task that runs it, and the requests suspended until it ends.
final class AsyncLoad<F: Feature>: AsyncLoadNode, @unchecked Sendable {
  // Sendable: all mutable state is in `state`, a lock.
  private struct State {
    var outcome: Result<F, any Error>?
    var waiters: [Int: CheckedContinuation<F, any Error>] = [:]
    var nextWaiter = 0
  }

  private let state = Lock.make(State())

  /// Ends the load: every suspended request resumes with `outcome`, and later ones get it at once.
  func finish(_ outcome: Result<F, any Error>) {
    let waiters = state.withLock { state in
      state.outcome = outcome
      defer { state.waiters = [:] }
      return state.waiters.values
    }
    for waiter in waiters { waiter.resume(with: outcome) }
  }

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

extension Branch {
  /// The async resolution primitive: async loaders run here, anything else as `resolve` does.
  func resolveAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) async throws -> F {
    if let overrides, let instance = overrides.instance(of: feature, context: context) { return instance }
    guard let entry = definition.table.entry(for: FeatureTable.key(feature)),
      entry.binding.takeUnretainedValue().registration.isAsync
    else { return try resolve(feature, context: context, at: location) }
    switch entry.kind {
    case .cacheable:
      let owner = ancestor(entry.depth)
      if let instance = owner.cached(feature, slot: entry.slot) { return instance }
      return try await owner.loadAsyncOnce(
        feature, context: context, entry: entry, key: AsyncLoadKey(feature: ObjectIdentifier(feature), context: nil),
        at: location, lookup: { owner.cached(feature, slot: entry.slot) },
        publish: { owner.publish(Box($0), slot: entry.slot) })
    case .contextualCacheable:
      let owner = ancestor(entry.depth)
      let multiton = owner.multiton(feature)
      let key = ContextKey(context as! AnyHashable)  // a contextual cacheable's Context is Hashable
      let lookup: @Sendable () -> F? = {
        multiton.entries.withLock { entries in
          if case .loaded(let instance) = entries[key] { return instance }
          return nil
        }
      }
      if let instance = lookup() { return instance }
      return try await owner.loadAsyncOnce(
        feature, context: context, entry: entry, key: AsyncLoadKey(feature: ObjectIdentifier(feature), context: key),
        at: location, lookup: lookup,
        publish: { instance in multiton.entries.withLock { $0[key] = .loaded(instance) } })
    default:
      return try await loadAsync(feature, context: context, entry: entry, frame: nil, at: location)
    }
  }

  /// Runs an async loader with its frame on the task's path.
  private func loadAsync<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, frame: AsyncFrame?, at location: SourceLocation
  ) async throws -> F {
    let binding = entry.binding.takeUnretainedValue()
    let frame =
      try frame
      ?? AsyncFrame(
        feature: feature, branch: ObjectIdentifier(self), context: context, location: location,
        parent: checkedPath(feature, context: context, at: location), load: AsyncLoadNode(step: nil, path: nil))
    let loader = binding.registration.payload as! AsyncLoader<F>  // an async registration holds one
    do {
      return try await AsyncFrame.$current.withValue(frame) {
        try await loader.load(context, Features(loading: self))
      }
    } catch let error as CircularDependency {
      throw error
    } catch {
      throw FeatureLoadingFailed(
        feature, binding: binding, cause: error, in: self, frames: frame.frames, at: location)
    }
  }

  /// The task's path, after checking that it is not already loading `feature` here.
  private func checkedPath<F: Feature>(
    _ feature: F.Type, context: F.Context, at location: SourceLocation
  ) throws -> AsyncFrame? {
    let path = AsyncFrame.current
    var frame = path
    while let current = frame {
      if current.feature == feature, current.branch == ObjectIdentifier(self), sameContext(current.context, context) {
        throw CircularDependency(
          LoadingThread.currentPath, closingWith: feature, in: self, at: location)
      }
      frame = current.parent
    }
    return path
  }

  /// Exactly once, asynchronously: the first request starts the load in its own task; every
  /// request, the first included, suspends until it ends.
  private func loadAsyncOnce<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, key: AsyncLoadKey, at location: SourceLocation,
    lookup: () -> F?, publish: @escaping @Sendable (F) -> Void
  ) async throws -> F {
    let path = try checkedPath(feature, context: context, at: location)
    let claim = state.withLock { state -> AsyncClaim<F> in
      if let instance = lookup() { return .loaded(instance) }
      if let load = state.asyncLoads[key] { return .join(unsafeDowncast(load, to: AsyncLoad<F>.self)) }
      let load = AsyncLoad<F>(
        step: LoadFrame(feature: feature, branch: ObjectIdentifier(self), context: context, location: location, parent: nil),
        path: path)
      state.asyncLoads[key] = load
      return .own(load)
    }
    switch claim {
    case .loaded(let instance):
      return instance
    case .own(let load):
      let frame = AsyncFrame(
        feature: feature, branch: ObjectIdentifier(self), context: context, location: location, parent: path,
        load: load)
      // Its own task, so that no requester's cancellation cancels a load that others wait for.
      Task {
        let outcome: Result<F, any Error>
        do {
          let instance = try await loadAsync(feature, context: context, entry: entry, frame: frame, at: location)
          publish(instance)
          outcome = .success(instance)
        } catch {
          outcome = .failure(error)
        }
        state.withLock { _ = $0.asyncLoads.removeValue(forKey: key) }
        load.finish(outcome)
      }
      return try await load.value()
    case .join(let load):
      guard let waiter = path?.load else { return try await load.value() }
      // A load waiting for a load that (through others) waits for it would never end.
      let loop = AsyncLoadNode.waits.withLock { waits -> [LoadFrame]? in
        var loads: [AsyncLoadNode] = []
        var node: AsyncLoadNode? = load
        while let current = node {
          if current === waiter { return loads.flatMap(\.frames) }
          loads.append(current)
          node = waits[ObjectIdentifier(current)]
        }
        waits[ObjectIdentifier(waiter)] = load
        return nil
      }
      if let loop {
        throw CircularDependency(loop + LoadingThread.currentPath, closingWith: feature, in: self, at: location)
      }
      defer { AsyncLoadNode.waits.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(waiter)) } }
      return try await load.value()
    }
  }
}
