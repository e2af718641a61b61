import Synchronization

extension Branch {
  /// The one resolution primitive: every request for any kind of feature ends here.
  @inline(__always)
  func resolve<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F {
    if let overrides, let instance = overrides.instance(of: feature, context: context) { return instance }
    guard let entry = definition.table.entry(for: FeatureTable.key(feature)) else {
      if let overrides, overrides.resolvesPlaceholders { return F.placeholder }
      throw FeatureUndefined(feature, in: self, at: location)
    }
    switch entry.kind {
    case .cacheable:
      let owner = ancestor(entry.depth)
      if let instance = owner.cached(feature, slot: entry.slot) { return instance }
      return try owner.loadSlotted(feature, context: context, entry: entry, at: location)
    case .static:
      return Unmanaged<Box<F>>.fromOpaque(entry.payload)._withUnsafeGuaranteedRef { $0.value }
    case .disposable:
      return try load(feature, context: context, entry: entry, at: location)
    case .contextualCacheable:
      return try ancestor(entry.depth).loadMultiton(feature, context: context, entry: entry, at: location)
    case .conflict:
      throw FeatureRegistrationConflict(entry.binding.takeUnretainedValue(), in: self, at: location)
    }
  }

  /// Runs the loader of `entry` in this branch, with a frame on the resolution path.
  func load<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, at location: SourceLocation
  ) throws -> F {
    if entry.binding.takeUnretainedValue().registration.isAsync {
      throw FeatureRequiresAwait(feature, binding: entry.binding.takeUnretainedValue(), in: self, at: location)
    }
    let thread = LoadingThread.current
    try checkCycle(feature, context: context, thread: thread, at: location)
    var frame = LoadFrame(
      feature: feature, branch: ObjectIdentifier(self), context: context, location: location, parent: thread.top)
    return try withUnsafeMutablePointer(to: &frame) { frame in
      thread.top = frame
      defer { thread.top = frame.pointee.parent }
      let loader = Unmanaged<Loader<F>>.fromOpaque(entry.payload).takeUnretainedValue()
      do {
        let features = Features(loading: self)
        // A loader never sees its requester's current features (keeping them would leak the
        // requester's branch into a cached instance); only pay for the task-local when there are some.
        guard Features.currentInTask != nil else { return try loader.load(context, features) }
        return try Features.$currentInTask.withValue(features) { try loader.load(context, features) }
      } catch let error as CircularDependency {
        throw error  // already names the whole loop; wrapping each step would only repeat it
      } catch {
        throw FeatureLoadingFailed(
          feature, binding: entry.binding.takeUnretainedValue(), cause: error, in: self, frames: thread.frames,
          at: location)
      }
    }
  }

  /// A request for `feature` while the same thread is already loading it (same branch and
  /// context) can only be a cycle.
  private func checkCycle<F: Feature>(
    _ feature: F.Type, context: F.Context, thread: LoadingThread, at location: SourceLocation
  ) throws {
    var frame = thread.top
    while let current = frame {
      if current.pointee.feature == feature, current.pointee.branch == ObjectIdentifier(self),
        sameContext(current.pointee.context, context)
      {
        throw CircularDependency(thread.frames, closingWith: feature, in: self, at: location)
      }
      frame = current.pointee.parent
    }
  }

  /// Loads a cacheable without a context once, however many requests race for it.
  func loadSlotted<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, at location: SourceLocation
  ) throws -> F {
    let slot = entry.slot
    return try loadOnce(
      feature, at: location,
      claim: { thread in
        state.withLock { state in
          if let instance = cached(feature, slot: slot) { return .loaded(instance) }
          if let inFlight = state.inFlight[slot] { return .wait(inFlight) }
          let inFlight = InFlight(owner: thread)
          state.inFlight[slot] = inFlight
          return .own(inFlight)
        }
      },
      load: { try load(feature, context: context, entry: entry, at: location) },
      settle: { box in
        if let box { publish(box, slot: slot) }
        state.withLock { _ = $0.inFlight.removeValue(forKey: slot) }
      })
  }

  /// Loads a cacheable once per context value.
  func loadMultiton<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.Entry, at location: SourceLocation
  ) throws -> F {
    let multiton = multiton(feature)
    let key = ContextKey(context as! AnyHashable)  // a contextual cacheable's Context is Hashable
    return try loadOnce(
      feature, at: location,
      claim: { thread in
        multiton.entries.withLock { entries in
          switch entries[key] {
          case .loaded(let instance): return .loaded(instance)
          case .loading(let inFlight): return .wait(inFlight)
          case nil:
            let inFlight = InFlight(owner: thread)
            entries[key] = .loading(inFlight)
            return .own(inFlight)
          }
        }
      },
      load: { try load(feature, context: context, entry: entry, at: location) },
      settle: { box in
        multiton.entries.withLock { entries in
          entries[key] = box.map { .loaded(unsafeDowncast($0, to: Box<F>.self).value) }
        }
      })
  }

  enum Claim<F> {
    case loaded(F)
    case wait(InFlight)
    case own(InFlight)
  }

  /// Exactly once: the first request owns the load and runs it without holding a lock; the others
  /// wait for its outcome. A failure is handed to those waiting and not cached.
  private func loadOnce<F: Feature>(
    _ feature: F.Type, at location: SourceLocation,
    claim: (LoadingThread) -> Claim<F>,
    load: () throws -> F,
    settle: (AnyObject?) -> Void
  ) throws -> F {
    let thread = LoadingThread.current
    switch claim(thread) {
    case .loaded(let instance):
      return instance
    case .wait(let inFlight):
      switch inFlight.wait(as: thread) {
      case .finished(.success(let box)): return unsafeDowncast(box, to: Box<F>.self).value
      case .finished(.failure(let error)): throw error
      case .deadlock(let ownerFrames):
        throw CircularDependency(ownerFrames + thread.frames, closingWith: feature, in: self, at: location)
      }
    case .own(let inFlight):
      do {
        let instance = try load()
        let box = Box(instance)
        settle(box)
        inFlight.finish(.success(box))
        return instance
      } catch {
        settle(nil)
        inFlight.finish(.failure(error))
        throw error
      }
    }
  }
}

extension Branch {
  /// The multiton cache of `feature` in this branch, created on first use.
  func multiton<F: Feature>(_ feature: F.Type) -> Multiton<F> {
    state.withLock { state in
      let key = ObjectIdentifier(feature)
      if let existing = state.multitons[key] { return unsafeDowncast(existing, to: Multiton<F>.self) }
      let created = Multiton<F>()
      state.multitons[key] = created
      return created
    }
  }
}

/// The instances of one contextual cacheable in one branch, by context value.
final class Multiton<F: Feature>: Sendable {
  enum Entry {
    case loaded(F)
    case loading(InFlight)
  }

  let entries = Lock<[ContextKey: Entry]>.make([:])
}

/// A context value as a dictionary key.
// Sendable: it only wraps a feature's `Context`, which is `Sendable`.
struct ContextKey: Hashable, @unchecked Sendable {
  let value: AnyHashable

  init(_ value: AnyHashable) {
    self.value = value
  }
}

/// Whether two contexts of one feature are the same request; contexts that cannot be compared
/// count as the same, so a loop through them is reported rather than run forever.
func sameContext(_ lhs: any Sendable, _ rhs: any Sendable) -> Bool {
  guard let lhs = lhs as? AnyHashable, let rhs = rhs as? AnyHashable else { return true }
  return lhs == rhs
}
