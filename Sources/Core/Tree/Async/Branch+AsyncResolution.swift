extension Branch {
  /// Resolves `feature` as the synchronous request does when its loader is synchronous (or it is
  /// undefined, or in conflict: the synchronous request throws what it should); `nil` when its
  /// loader is asynchronous, for ``resolveAsync(_:context:at:)`` to run. Inlined, as `resolve` is.
  @inlinable @inline(__always)
  func resolveUnlessAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F? {
    if let entry = table.entry(for: FeatureTable.key(feature)), case .serves = entry.kind, entry.isAsync { return nil }
    return try resolve(feature, context: context, at: location)
  }

  /// The async resolution primitive: async loaders run here, anything else as `resolve` does.
  func resolveAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) async throws -> F {
    if isClosed { throw closed(.resolving(feature), at: location) }
    if let overrides, let instance = overrides.instance(of: feature, context: context, in: self, at: location) {
      return instance
    }
    guard let entry = definition.table.entry(for: FeatureTable.key(feature)), case .serves(let lifetime) = entry.kind,
      entry.isAsync
    else { return try resolve(feature, context: context, at: location) }
    switch lifetime {
    case .cacheable, .cacheablePerContext:
      return try await ancestor(entry.depth).resolveCachedAsync(feature, context: context, entry: entry, at: location)
    case .disposable:
      return try await loadAsync(feature, context: context, entry: entry, frame: nil, at: location)
    case .static:  // a value, never loaded: registered as synchronous
      return try resolve(feature, context: context, at: location)
    }
  }

  /// Runs an async loader with its frame on the task's path.
  func loadAsync<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, frame given: AsyncFrame?,
    at location: SourceLocation
  ) async throws -> F {
    let binding = entry.binding.object
    let frame: AsyncFrame
    if let given {
      frame = given
    } else {
      let path = try checkedPath(feature, context: context, at: location)
      let step = LoadStep(
        feature: feature, branch: ObjectIdentifier(self), context: context, location: location)
      // A disposable is part of the load that requested it: its waits are that load's waits.
      frame = AsyncFrame(step: step, parent: path, load: path?.load ?? AsyncLoadNode(step: step, path: path))
    }
    let loader = binding.registration.payload as! AsyncLoader<F>  // an async registration holds one
    let observation =
      definition.isObserved ? LoadObservation(feature, binding: binding, in: self, at: location) : nil
    do {
      AsyncFrame.willSetCurrent()
      let instance = try await AsyncFrame.$current.withValue(frame) {
        let features = loaderFeatures
        // As for synchronous loaders: never the requester's current features, only these.
        guard Features.hasCurrentInTask else { return try await loader.load(context, features) }
        return try await Features.$currentInTask.withValue(features) { try await loader.load(context, features) }
      }
      observation?.end(failure: nil)
      return instance
    } catch {
      let failure = wrappedAsyncFailure(feature, binding: binding, frame: frame, cause: error, at: location)
      observation?.end(failure: failure)
      throw failure
    }
  }

  /// What an async loader's error becomes for its requester.
  private func wrappedAsyncFailure<F: Feature>(
    _ feature: F.Type, binding: Binding, frame: AsyncFrame, cause: any Error, at location: SourceLocation
  ) -> any Error {
    // A cycle already names the whole loop.
    if cause is CircularDependency { return cause }
    // A disposable loads in its requester's task: cancelling the requester ends its request with
    // `CancellationError`, as it ends a wait for a cacheable (whose load runs in a task of its own).
    if cause is CancellationError, Task.isCancelled { return cause }
    return FeatureLoadingFailed(
      feature, binding: binding, cause: cause, in: self, path: frame.parent?.frames ?? [], at: location)
  }

  /// The task's path, after checking that it is not already loading `feature` here.
  private func checkedPath<F: Feature>(
    _ feature: F.Type, context: F.Context, at location: SourceLocation
  ) throws -> AsyncFrame? {
    if let cycle = asyncCycle(feature, context: context, at: location) { throw cycle }
    return AsyncFrame.current
  }

  /// The cycle a request for `feature` with `context` closes, if the task is already loading it
  /// in this branch (with the same context, or one that cannot be compared).
  func asyncCycle<F: Feature>(
    _ feature: F.Type, context: F.Context, at location: SourceLocation
  ) -> CircularDependency? {
    var frame = AsyncFrame.current
    while let current = frame {
      if current.step.feature == feature, current.step.branch == ObjectIdentifier(self),
        let loading = current.step.context as? F.Context
      {
        switch ContextComparison(loading, context) {
        case .same:
          return CircularDependency(LoadingThread.currentPath, closingWith: feature, in: self, at: location)
        case .incomparable:
          return CircularDependency(
            LoadingThread.currentPath, closingWith: feature, in: self, incomparable: F.Context.self, at: location)
        case .different:
          break
        }
      }
      frame = current.parent
    }
    return nil
  }

  /// Resolves a cacheable with an async loader, cached in this branch: read where it is cached, or
  /// loaded once.
  private func resolveCachedAsync<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, at location: SourceLocation
  ) async throws -> F {
    let isMultiton = entry.kind == .serves(.cacheablePerContext)
    let multiton = isMultiton ? multiton(feature, word: entry.unitWord!) : nil
    if let multiton {
      if let instance = multiton.cached(context) { return instance }
      try requireContextEqualToItself(context, of: multiton, entry: entry, at: location)
    }
    if !isMultiton, let instance = cached(feature, entry: entry) { return instance }
    let key = LoadKey(feature, context: context, isMultiton: isMultiton)
    var expired = false
    return try await loadAsyncOnce(
      feature, context: context, entry: entry, key: key, at: location,
      lookup: { state in
        cached(feature, key: key, entry: entry, multiton: multiton, context, in: &state, expired: &expired)
      },
      claimed: { if expired { renewExpired(key) } },
      publish: { instance, dependencies in
        self.makePathIfTethered()
        self.state.withLock { state in
          self.cache(
            instance, key: key, context: context, entry: entry, multiton: multiton, dependencies: dependencies,
            in: &state)
          state.loads.finish(key)
        }
      },
      failed: { _ = self.state.withLock { $0.loads.finish(key) } })
  }

  /// Exactly once, asynchronously: the first request starts the load in its own task; every
  /// request, the first included, suspends until it ends.
  ///
  /// - Parameters:
  ///   - lookup: Reads the instance, under the lock, if it is cached.
  ///   - claimed: Runs once the request claimed or joined a load.
  ///   - publish: Caches what the load loaded, with the instances it received, and finishes the
  ///     load in the branch's ``LoadTable``, in one critical section.
  ///   - failed: Finishes the load in the table after a failure.
  private func loadAsyncOnce<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, key: LoadKey, at location: SourceLocation,
    lookup: (inout State) -> F?, claimed: () -> Void, publish: @escaping @Sendable (F, [Dependency]) -> Void,
    failed: @escaping @Sendable () -> Void
  ) async throws -> F {
    let path = try checkedPath(feature, context: context, at: location)
    let step = LoadStep(
      feature: feature, branch: ObjectIdentifier(self), context: context, location: location)
    var instance: F?
    let claim = state.withLock { state in
      let isOpen = !isClosed
      if isOpen { instance = lookup(&state) }
      return state.loads.claim(key, isOpen: isOpen, isCached: instance != nil) {
        AsyncLoad<F>(step: step, path: path, in: self)
      }
    }
    claimed()
    switch claim {
    case .cached:
      return instance!
    case .refused:
      throw closed(.resolving(feature), at: location)
    case .own(let started):
      let load = UncountedReference.cast(started, to: AsyncLoad<F>.self)
      let frame = AsyncFrame(step: step, parent: path, load: load)
      // Its own task, so that no requester's cancellation cancels a load that others wait for. The
      // task holds the branch, so that its loader's features still find it if every requester has
      // gone and dropped it.
      // A tethered branch's ancestors too: this request holds them, so the holds are granted.
      anchor.borrow { $0.hold() }
      let tethers = tether?.holdTethers()
      Task {
        defer {
          withExtendedLifetime(tethers) {}
          anchor.borrow { $0.release() }
        }
        let outcome: Result<F, any Error>
        do {
          let instance = try await loadAsync(feature, context: context, entry: entry, frame: frame, at: location)
          publish(instance, load.dependencies)
          outcome = .success(instance)
        } catch {
          failed()
          outcome = .failure(error)
        }
        load.finish(outcome)
      }
      return try await value(of: load, for: path?.load, feature, entry: entry, at: location)
    case .join(let load):
      return try await value(
        of: UncountedReference.cast(load, to: AsyncLoad<F>.self), for: path?.load, feature, entry: entry, at: location)
    }
  }

  /// Waits for a load; when the requester is itself a load, records the wait so that loads
  /// waiting for each other fail instead of hanging.
  ///
  /// Every request, the one that started the load included, gets a failure with its own site and
  /// path; the cause is the load's.
  private func value<F: Feature>(
    of load: AsyncLoad<F>, for waiter: AsyncLoadNode?, _ feature: F.Type, entry: FeatureTable.Entry,
    at location: SourceLocation
  ) async throws -> F {
    let outcome: Result<F, LoadFailed>
    if let waiter {
      switch try await waiter.wait(for: load, { await Self.outcome(of: load) }) {
      case .success(let ended): outcome = ended
      case .failure(let loop):
        throw CircularDependency(loop.frames + LoadingThread.currentPath, closingWith: feature, in: self, at: location)
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
      throw waitedForFailedLoad(
        feature, binding: entry.binding.object, failure: failure, path: LoadingThread.currentPath,
        at: location)
    }
  }

  /// Why a wait for an async load ended without an instance: the waiting task was cancelled (its
  /// own error, thrown as it is), or the load failed (shared by every waiter).
  private enum LoadFailed: Error {
    case cancelled(any Error)
    case loading(any Error)
  }

  private static func outcome<F>(of load: AsyncLoad<F>) async -> Result<F, LoadFailed> {
    do {
      return .success(try await load.value())
    } catch let error as CancellationError {
      return .failure(.cancelled(error))
    } catch {
      return .failure(.loading(error))
    }
  }
}
