import Synchronization

extension Branch {
  /// The one resolution primitive: every request for any kind of feature ends here.
  ///
  /// Inlined into the caller and specialised for `F`: a cached instance (a multiton's too), a static
  /// value or a disposable's loader is reached without a lock, an allocation or a reference count.
  /// Everything else (test overrides, first loads, instances in overflow blocks, conflicts,
  /// undefined features) takes ``resolveSlowly(_:context:at:)`` or a load.
  ///
  /// - Parameter thread: This thread's loading state, when the caller has it at hand.
  @inlinable @inline(__always)
  func resolve<F: Feature>(
    _ feature: F.Type, context: F.Context, at location: SourceLocation, thread: UncountedReference<LoadingThread>? = nil
  ) throws -> F {
    if slowPathFlags.load(ordering: .relaxed) == 0, let entry = table.entry(for: FeatureTable.key(feature)) {
      switch entry.kind {
      case .serves(.cacheable):
        if let unit = inlineUnit(up: entry.depth, entry),
          let instance = unit.instance(feature, at: entry.instanceOffset)
        {
          return instance
        }
        return try UnitLoad.load(up: entry.depth, from: self, context: context, entry: entry, at: location)
      case .serves(.static):
        return entry.payload.known(as: Box<F>.self).borrow { $0.value }
      case .serves(.disposable):
        return try load(feature, context: context, entry: entry, at: location, thread: thread).instance
      case .serves(.cacheablePerContext):
        if let unit = inlineUnit(up: entry.depth, entry),
          let instance = unit.state.multitonInstance(feature, for: context)
        {
          return instance
        }
        return try loadPerContext(feature, context: context, entry: entry, at: location)
      case .conflict:
        break
      }
    }
    return try resolveSlowly(feature, context: context, at: location)
  }

  /// Resolves `feature` as the synchronous request does when its loader is synchronous (or it is
  /// undefined, or in conflict: the synchronous request throws what it should, and a main-actor
  /// loader on the main actor); `nil` when its loader is asynchronous, or runs on the main actor and
  /// this is not it, for ``AsyncRequest/resolve()`` to run. Inlined, as `resolve` is.
  @inlinable @inline(__always)
  func resolveUnlessAsync<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F? {
    if let entry = table.entry(for: FeatureTable.key(feature)), case .serves = entry.kind,
      entry.isAsync || (entry.loadsOnMainActor && !MainQueue.isCurrent())
    {
      return nil
    }
    return try resolve(feature, context: context, at: location)
  }

  /// The instance of `feature` in `branch` if it takes no loading: a cached instance or a static
  /// value.
  ///
  /// Static, on an uncounted branch reference, with each field read in a closure of its own: inlined whole
  /// into the caller, with nothing for the optimiser to retain.
  @inlinable @inline(__always)
  static func peek<F: Feature>(_ feature: F.Type, in branch: UncountedReference<Branch>) -> F? {
    // A closed branch sends its requests the slow way through `slowPathFlags`.
    let (slowPathFlags, table) = branch.borrow {
      ($0.slowPathFlags.load(ordering: .relaxed), $0.table)
    }
    guard slowPathFlags == 0, let entry = table.entry(for: FeatureTable.key(feature)) else { return nil }
    switch entry.kind {
    case .serves(.cacheable):
      var owner = branch
      var depth = entry.depth
      while depth > 0 {
        owner = owner.borrow { $0.parentReference! }
        depth &-= 1
      }
      return owner.borrow { $0.storage }.unit(entry)?.instance(feature, at: entry.instanceOffset)
    case .serves(.static):
      return entry.payload.known(as: Box<F>.self).borrow { $0.value }
    case .serves(.disposable), .serves(.cacheablePerContext), .conflict:
      return nil
    }
  }

  /// What ``resolve(_:context:at:)`` keeps off its inlined path.
  @usableFromInline
  func resolveSlowly<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F {
    if isClosed { throw FeaturesClosed(.resolving(feature), through: self, requestedAt: location) }
    if let overrides, let instance = overrides.instance(of: feature, context: context, in: self, at: location) {
      return instance
    }
    guard let entry = table.entry(for: FeatureTable.key(feature)) else {
      if let overrides, overrides.resolvesPlaceholders { return F.placeholder }
      throw FeatureUndefined(feature, in: self, at: location)
    }
    switch entry.kind {
    case .serves(.cacheable):
      let owner = ancestor(entry.depth)
      if let instance = owner.units.cached(feature, entry: entry.pointer.pointee) { return instance }
      return try UnitLoad(feature, entry: entry, in: owner).load(context: context, at: location)
    case .serves(.static):
      return entry.payload.known(as: Box<F>.self).borrow { $0.value }
    case .serves(.disposable):
      return try load(feature, context: context, entry: entry, at: location).instance
    case .serves(.cacheablePerContext):
      return try loadPerContext(feature, context: context, entry: entry, at: location)
    case .conflict:
      throw FeatureRegistrationConflict(entry.binding.object, in: self, at: location)
    }
  }

  /// A multiton's instance for `context`, in the branch that registers it: the way out of
  /// ``resolve(_:context:at:thread:)``'s inlined read when it misses, as ``UnitLoad`` is a
  /// cacheable's, without the checks of ``resolveSlowly(_:context:at:)`` that the read made already.
  ///
  /// Its own small frame: a chain of multitons that request each other stacks one per link.
  @usableFromInline
  func loadPerContext<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation
  ) throws -> F {
    try KeyedLoad(feature, context: context, entry: entry.pointer.pointee, in: ancestor(entry.depth))
      .load(through: entry, at: location)
  }

  /// Runs the loader of `entry` in this branch, with a frame on the resolution path: the instance,
  /// and for a cacheable, what its loader received (see ``LoadingThread/runLoader(on:_:context:entry:in:at:)``).
  ///
  /// Inlined so that a disposable's load is specialised: the frame lives on this stack, and the
  /// loader is called through its box without a reference count.
  @inlinable @inline(__always)
  func load<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, at location: SourceLocation,
    thread: UncountedReference<LoadingThread>? = nil
  ) throws -> Loaded<F> {
    if entry.isAsync {
      throw FeatureRequiresAwait.orCycle(feature, context: context, entry: entry, in: self, at: location)
    }
    if entry.loadsOnMainActor {
      try FeatureRequiresMainActor.unlessOnMainActor(feature, entry: entry, in: self, at: location)
    }
    // An observed tree's loads take a path of their own: an unobserved load pays this one branch.
    if definition.isObserved {
      return try LoadObservation.load(feature, context: context, entry: entry, in: self, at: location)
    }
    return try LoadingThread.runLoader(
      on: thread ?? LoadingThread.currentReference, feature, context: context, entry: entry, in: self, at: location)
  }
}
