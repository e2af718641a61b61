import Synchronization

/// What a thread is loading (its frames) and which load of another thread it waits for.
///
/// Synchronous loaders run on the requesting thread, so the frames of one thread are exactly the
/// resolution path; cycles are found by walking them, and deadlocks across threads in the
/// ``WaitGraph``, where a thread waits for a load and a load for its owner thread.
///
/// A request walks the frames looking for the same load (a cycle), which is cheap while the path is
/// short, as nearly every path is. Once the path reaches ``shallowDepth`` frames, every frame on it
/// is indexed by feature, branch and context hash (``indexedFrames``) until it is short again, so a
/// request on a long path (a disposable that recurses with other contexts) looks its load up
/// instead: its cost does not grow with the depth.
@usableFromInline
package final class LoadingThread: WaitGraph.Node, @unchecked Sendable {
  // Sendable: each instance belongs to one thread. Its owner pushes and pops `top`; another thread
  // reads the frames (`frames`) only while this one is blocked waiting for a load that cannot
  // finish before that other thread's, under the wait graph's lock (see `InFlight.wait`), so the
  // frames cannot change meanwhile.
  // Unchecked exclusivity: the runtime check would cost two calls on every load.
  @exclusivity(unchecked) @usableFromInline var top: InPlace<LoadFrame>?
  // The index below is touched only by the owning thread, and only while the path is at least
  // `shallowDepth` frames long.
  /// The innermost frame on the path of each key; see `frameBelow` for the others.
  private var indexedFrames: [DeepKey: InPlace<LoadFrame>] = [:]
  /// Per frame on the path, by depth: its key, and the next frame further up the path with the same
  /// key. Popping a frame needs no hash, and no key owns an allocation.
  private var frameBelow: [(key: DeepKey, next: InPlace<LoadFrame>?)] = []

  /// The instances the cacheable runs on this path received from their requests, the innermost
  /// run's last (see ``runLoader(on:_:context:entry:in:at:)``).
  @exclusivity(unchecked) var dependencies: [Dependency] = []
  /// How many of `dependencies` there are, for the inlined run.
  @exclusivity(unchecked) @usableFromInline var dependencyCount = 0
  /// How many cacheable runs are on this path: requests record what they receive while one is.
  @exclusivity(unchecked) @usableFromInline var cachingLoads = 0
  /// The instance a request on this path found expired and renewed, with the renewal's epoch: the
  /// request receives the new instance, which its record must not take for the old one.
  @exclusivity(unchecked) var renewedByRequest: RenewedByRequest?

  /// How deep a path is walked frame by frame; frames from this depth up are indexed.
  @usableFromInline static var shallowDepth: Int { 24 }
  @usableFromInline package init() {}

  /// A thread runs as long as its loads: it blocks a load it owns until that load finishes.
  package var isFinished: Bool { false }
  /// What a thread waits for is recorded in the graph while it waits.
  package var waitsImplicitlyFor: (any WaitGraph.Node)? { nil }

  /// This thread's loading state, created on first use and released when the thread exits.
  static var current: LoadingThread { currentReference.object }

  /// This thread's loading state without a reference count: the thread keeps it alive as long as
  /// it runs, and only its own thread uses it.
  @inlinable @inline(__always)
  static var currentReference: UncountedReference<LoadingThread> {
    ThreadLocalReference.current(keyedBy: threadKey, LoadingThread.init)
  }

  /// The thread-specific key of every thread's loading state, plus one; 0 until the first load.
  @usableFromInline static let threadKey = Atomic<UInt>(0)

  /// What deep frames are indexed by: the same load has the same key.
  private struct DeepKey: Hashable {
    let feature: ObjectIdentifier
    let branch: ObjectIdentifier
    let contextHash: Int
  }

  /// The frames on this thread's path that load `feature` in `branch` with a context whose hash
  /// is `contextHash`. Call on a path of ``shallowDepth`` frames or more.
  func indexedFramesLoading(
    _ feature: any Feature.Type, in branch: ObjectIdentifier, contextHash: Int, _ body: (LoadFrame) throws -> Void
  ) rethrows {
    var frame = indexedFrames[DeepKey(feature: ObjectIdentifier(feature), branch: branch, contextHash: contextHash)]
    while let current = frame {
      try body(current.pointee)
      frame = frameBelow[current.pointee.depth].next
    }
  }

  /// Indexes `frame`, just pushed at ``shallowDepth`` or deeper, which loads `context`: hashed as
  /// `hash` by the cycle check of a request on a long path. The frame that makes the path long
  /// indexes every frame below it first (and hashes its own context here).
  @usableFromInline
  func indexDeepFrame<Context>(
    _ frame: InPlace<LoadFrame>, of feature: any Feature.Type, context: Context, hashedAs hash: Int
  ) {
    var contextHash = hash
    if frame.pointee.depth == Self.shallowDepth {
      var below: [InPlace<LoadFrame>] = []
      var next = frame.pointee.parent
      while let current = next {
        below.append(current)
        next = current.pointee.parent
      }
      for shallow in below.reversed() { index(shallow, contextHash: Self.contextHash(of: shallow.pointee)) }
      contextHash = ContextMatcher(context).hash()
    }
    index(frame, contextHash: contextHash)
  }

  private func index(_ frame: InPlace<LoadFrame>, contextHash: Int) {
    let key = DeepKey(
      feature: ObjectIdentifier(frame.pointee.feature), branch: frame.pointee.branch, contextHash: contextHash)
    frameBelow.append((key, indexedFrames.updateValue(frame, forKey: key)))
  }

  /// The hash of the context `frame` loads with (see ``ContextMatcher``).
  private static func contextHash(of frame: LoadFrame) -> Int {
    func hash<F: Feature>(_: F.Type) -> Int {
      ContextMatcher(frame.context.load(as: F.Context.self)).hash()
    }
    return hash(frame.feature)
  }

  /// Removes `frame`, about to be popped, from the index; the frame that made the path long takes
  /// the index with it.
  @usableFromInline
  func unindexDeepFrame(_ frame: InPlace<LoadFrame>) {
    guard frame.pointee.depth > Self.shallowDepth else {
      indexedFrames.removeAll(keepingCapacity: true)
      frameBelow.removeAll(keepingCapacity: true)
      return
    }
    let (key, next) = frameBelow.removeLast()
    indexedFrames[key] = next
  }

  /// The steps of the loads in progress, from the outermost to the innermost.
  var frames: [LoadStep] {
    var frames: [LoadStep] = []
    var frame = top
    while let current = frame {
      frames.append(current.pointee.step)
      frame = current.pointee.parent
    }
    return frames.reversed()
  }
}

/// A test hook: this thread's loading state, made if it has none; the thread's exit releases it.
package func loadingStateOfCurrentThread() -> AnyObject {
  LoadingThread.current
}

extension LoadingThread {
  /// The resolution path of the current request: the task's async loads, then this thread's.
  static var currentPath: [LoadStep] {
    (AsyncFrame.current?.frames ?? []) + current.frames
  }
}

extension LoadingThread {
  /// Runs the loader of `entry` for `feature` in `branch` on `thread`, this thread's loading state,
  /// with a frame for it on top of the thread's resolution path: the frame and its context live on
  /// this call's stack, and a deep path indexes the frame, so that a cycle is found without walking
  /// it.
  ///
  /// A cacheable's run (its entry's ``Keeping/isCached``) records the cached instances its loader's
  /// requests receive, and hands them back with the instance: its caller caches both at once.
  ///
  /// Static, on an uncounted reference, with each step on the thread's state a call that returns
  /// before the loader runs: a chain of loads stacks these frames once per link, and in a debug
  /// build every closure around the loader's call is one more frame.
  ///
  /// - Throws: ``CircularDependency`` when the path has this load already, and
  ///   ``FeatureLoadingFailed`` when the loader throws.
  @inlinable @inline(__always)
  static func runLoader<F: Feature>(
    on thread: UncountedReference<LoadingThread>, _ feature: F.Type, context: F.Context,
    entry: FeatureTable.EntryReference, in branch: Branch, at location: SourceLocation
  ) throws -> Loaded<F> {
    let parent = thread.borrow { $0.top }
    // On a long path, the check hashes the context, and the frame is indexed with that hash.
    let contextHash =
      parent != nil ? try thread.borrow { try $0.checkCycle(feature, in: branch, context: context, at: location) } : 0
    // The context and the frame stay on this call's stack, where the path reads them in place.
    return try LoadFrame.with(context) { framedContext in
      LoadFrame(
        feature: feature, branch: ObjectIdentifier(branch), context: framedContext, location: location,
        parent: parent, identity: BranchAnchor.identity(branch.anchor), depth: parent.map { $0.pointee.depth &+ 1 } ?? 0
      )
    } _: { frame in
      let records = thread.borrow {
        $0.push(frame, of: feature, context: context, hashedAs: contextHash, keeping: entry.keeping)
      }
      defer { thread.borrow { $0.pop(frame) } }
      do {
        let instance = try entry.payload.known(as: Loader<F>.self).borrow { loader in
          // A loader never sees its requester's current features (keeping them would leak the
          // requester's branch into a cached instance); only pay for the task-local when there are some.
          guard Features.hasCurrentInTask else { return try loader(context, branch.loaderFeatures) }
          return try Features.withCurrentInTask(branch.loaderFeatures) { try loader(context, branch.loaderFeatures) }
        }
        return Loaded(instance, received: records < 0 ? [] : thread.borrow { $0.endCachingLoad(from: records) })
      } catch {
        throw thread.borrow {
          $0.loaderFailed(error, feature, entry: entry, in: branch, records: records, at: location)
        }
      }
    }
  }

  /// Puts `frame`, which loads `context`, on top of this thread's path (indexed on a long path,
  /// with `hash`), and starts a cacheable's records (kept as `keeping` says).
  ///
  /// - Returns: Where the run's records start; -1 for a disposable, which nothing renews.
  @inlinable @inline(__always)
  func push<Context>(
    _ frame: InPlace<LoadFrame>, of feature: any Feature.Type, context: Context, hashedAs hash: Int, keeping: Keeping
  ) -> Int {
    top = frame
    if frame.pointee.depth >= Self.shallowDepth {
      indexDeepFrame(frame, of: feature, context: context, hashedAs: hash)
    }
    switch keeping {
    case .nowhere: return -1
    case .inPlace, .perContext, .held: return beginCachingLoad()
    }
  }

  /// Takes `frame`, the top of this thread's path, off it.
  @inlinable @inline(__always)
  func pop(_ frame: InPlace<LoadFrame>) {
    if frame.pointee.depth >= Self.shallowDepth { unindexDeepFrame(frame) }
    top = frame.pointee.parent
  }

  /// What a loader's error becomes (see ``FeatureLoadingFailed/loaderThrew(_:_:entry:in:thread:at:)``),
  /// once its run's records (from `records`, unless -1) are dropped.
  @usableFromInline
  func loaderFailed<F: Feature>(
    _ error: any Error, _ feature: F.Type, entry: FeatureTable.EntryReference, in branch: Branch, records: Int,
    at location: SourceLocation
  ) -> any Error {
    if records >= 0 { dropCachingLoad(from: records) }
    return FeatureLoadingFailed.loaderThrew(error, feature, entry: entry, in: branch, thread: self, at: location)
  }
}
