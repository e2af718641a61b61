import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a thread is loading (its frames) and which load of another thread it waits for.
///
/// Synchronous loaders run on the requesting thread, so the frames of one thread are exactly the
/// resolution path; cycles are found by walking them, and deadlocks across threads by following
/// `LoadingThread.waits` from owner to owner.
///
/// A request walks the frames looking for the same load (a cycle), which is cheap while the path is
/// short, as nearly every path is. Frames from ``shallowDepth`` up are also indexed by feature,
/// branch and context hash (``deepFrames``), so a request on a long path (a disposable that
/// recurses with other contexts) walks only the shallow frames and looks up the deep ones: its cost
/// does not grow with the depth.
@usableFromInline
final class LoadingThread: @unchecked Sendable {
  // Sendable: each instance belongs to one thread. Its owner pushes and pops `top`; another thread
  // reads the frames (`frames`) only while this one is blocked waiting for that thread's load,
  // under the `waits` lock (see `InFlight.wait`), so the frames cannot change meanwhile.
  // Unchecked exclusivity: the runtime check would cost two calls on every load.
  @exclusivity(unchecked) @usableFromInline var top: UnsafeMutablePointer<LoadFrame>?
  /// The deep frames by what they load: touched only by the owning thread, and only on paths at
  /// least ``shallowDepth`` deep.
  /// The innermost deep frame of each key; see `deepFrameBelow` for the others.
  private var deepFrames: [DeepKey: UnsafeMutablePointer<LoadFrame>] = [:]
  /// Per deep frame, by depth from ``shallowDepth``: its key, and the next deep frame further up the
  /// path with the same key. Popping a frame needs no hash, and no key owns an allocation.
  private var deepFrameBelow: [(key: DeepKey, next: UnsafeMutablePointer<LoadFrame>?)] = []
  /// The frame at depth `shallowDepth - 1` while deeper frames exist: where the walk of a deep
  /// request starts.
  private var shallowTop: UnsafeMutablePointer<LoadFrame>?

  /// How deep a path is walked frame by frame; frames from this depth up are indexed.
  @usableFromInline static var shallowDepth: Int { 24 }
  /// The wait-for graph lock: taken only when a thread is about to wait for another's load.
  static let waits = Lock<[ObjectIdentifier: InFlight]>.make([:])

  /// This thread's loading state, created on first use and released when the thread exits.
  static var current: LoadingThread { currentReference.takeUnretainedValue() }

  /// This thread's loading state without a reference count: the thread-specific slot keeps it
  /// alive as long as the thread runs, and only its own thread uses it.
  ///
  /// The key is read from a statically initialised word rather than a lazy global, so that the
  /// read costs no `swift_once` call.
  @inlinable @inline(__always)
  static var currentReference: Unmanaged<LoadingThread> {
    let key = threadKey.load(ordering: .acquiring)
    if key != 0, let existing = pthread_getspecific(pthread_key_t(truncatingIfNeeded: key &- 1)) {
      return Unmanaged.fromOpaque(existing)
    }
    return makeCurrent()
  }

  /// The thread-specific key of every thread's loading state, plus one; 0 until the first load.
  @usableFromInline static let threadKey = Atomic<UInt>(0)

  /// Makes this thread's loading state (and the key, the first time).
  @usableFromInline @inline(never)
  static func makeCurrent() -> Unmanaged<LoadingThread> {
    let key = Self.key
    if let existing = pthread_getspecific(key) { return Unmanaged.fromOpaque(existing) }
    let thread = Unmanaged.passRetained(LoadingThread())
    pthread_setspecific(key, thread.toOpaque())
    return thread
  }

  /// The key, created on first use and then published in ``threadKey`` for the fast path.
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
      let destructor: @convention(c) (UnsafeMutableRawPointer) -> Void = { state in
        Unmanaged<LoadingThread>.fromOpaque(state).release()
      }
    #else
      let destructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { state in
        if let state { Unmanaged<LoadingThread>.fromOpaque(state).release() }
      }
    #endif
    precondition(pthread_key_create(&key, destructor) == 0, "Arbor could not create its thread-local key")
    threadKey.store(UInt(key) &+ 1, ordering: .releasing)
    return key
  }()

  /// What deep frames are indexed by: the same load has the same key.
  private struct DeepKey: Hashable {
    let feature: ObjectIdentifier
    let branch: ObjectIdentifier
    let contextHash: Int
  }

  /// The frames on this thread's path that load `feature` in `branch` with a context that may
  /// equal `context` (whose hash is `contextHash`): every shallow frame of `feature` in `branch`,
  /// then the deep ones whose context hashes the same. Call on a path of ``shallowDepth`` frames or
  /// more.
  func deepFramesLoading(
    _ feature: any Feature.Type, in branch: ObjectIdentifier, contextHash: Int, _ body: (LoadFrame) throws -> Void
  ) rethrows {
    var frame = shallowTop
    while let current = frame {
      if current.pointee.branch == branch, current.pointee.feature == feature { try body(current.pointee) }
      frame = current.pointee.parent
    }
    var deep = deepFrames[DeepKey(feature: ObjectIdentifier(feature), branch: branch, contextHash: contextHash)]
    while let current = deep {
      try body(current.pointee)
      deep = deepFrameBelow[current.pointee.depth - Self.shallowDepth].next
    }
  }

  /// Indexes `frame`, just pushed at ``shallowDepth`` or deeper, which loads `context`: hashed as
  /// `hash` by the cycle check of a request deeper than the first deep frame, which only hashes here.
  @usableFromInline
  func indexDeepFrame<Context>(
    _ frame: UnsafeMutablePointer<LoadFrame>, of feature: any Feature.Type, context: Context, hashedAs hash: Int
  ) {
    var contextHash = hash
    if frame.pointee.depth == Self.shallowDepth {
      shallowTop = frame.pointee.parent
      contextHash = ContextMatcher(context).hash()
    }
    let key = DeepKey(feature: ObjectIdentifier(feature), branch: frame.pointee.branch, contextHash: contextHash)
    deepFrameBelow.append((key, deepFrames.updateValue(frame, forKey: key)))
  }

  /// Removes `frame`, about to be popped, from the index.
  @usableFromInline
  func unindexDeepFrame(_ frame: UnsafeMutablePointer<LoadFrame>) {
    let (key, next) = deepFrameBelow.removeLast()
    deepFrames[key] = next
    if frame.pointee.depth == Self.shallowDepth { shallowTop = nil }
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

extension LoadingThread {
  /// The resolution path of the current request: the task's async loads, then this thread's.
  static var currentPath: [LoadStep] {
    (AsyncFrame.current?.frames ?? []) + current.frames
  }
}
