import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One step of a resolution path: a feature being loaded, where, with which context, and where it
/// was requested. What diagnostics and async loads keep; a thread's loads keep ``LoadFrame``s.
struct LoadStep: Sendable {
  let feature: any Feature.Type
  let branch: ObjectIdentifier
  let context: any Sendable
  let location: SourceLocation
}

/// One feature being loaded on a thread: a frame of the resolution path.
///
/// Frames live on the stack of the loading call and link to the frame of the load that requested
/// them, so the path costs no allocation. Every field is trivial, so pushing and popping a frame
/// touches no reference count: the context stays where the loading call keeps it, and becomes a
/// value (``step``) only when a diagnostic needs it.
@usableFromInline
struct LoadFrame {
  @usableFromInline let feature: any Feature.Type
  @usableFromInline let branch: ObjectIdentifier
  /// The loading call's `F.Context`, valid while the frame is on the path.
  @usableFromInline let context: UnsafeRawPointer
  @usableFromInline let location: SourceLocation
  @usableFromInline let parent: UnsafeMutablePointer<LoadFrame>?
  /// The identity (``BranchAnchor/identity(_:)``) of the loading branch.
  @usableFromInline let identity: UInt64
  /// How many frames are below this one on the thread's path.
  @usableFromInline let depth: Int

  @inlinable @inline(__always)
  init(
    feature: any Feature.Type, branch: ObjectIdentifier, context: UnsafeRawPointer, location: SourceLocation,
    parent: UnsafeMutablePointer<LoadFrame>?, identity: UInt64, depth: Int
  ) {
    self.feature = feature
    self.branch = branch
    self.context = context
    self.location = location
    self.parent = parent
    self.identity = identity
    self.depth = depth
  }

  /// The frame as a value that outlives it.
  var step: LoadStep {
    LoadStep(feature: feature, branch: branch, context: Self.context(of: feature, at: context), location: location)
  }

  private static func context<F: Feature>(of feature: F.Type, at context: UnsafeRawPointer) -> any Sendable {
    context.assumingMemoryBound(to: F.Context.self).pointee
  }
}

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
  private var deepFrames: [DeepKey: [UnsafeMutablePointer<LoadFrame>]] = [:]
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
  /// equal `context`: every shallow frame of `feature` in `branch`, then the deep ones whose context
  /// hashes the same. A path shorter than ``shallowDepth`` is walked whole.
  func framesLoading<F: Feature>(
    _ feature: F.Type, in branch: ObjectIdentifier, context: F.Context, _ body: (LoadFrame) throws -> Void
  ) rethrows {
    guard let top, top.pointee.depth >= Self.shallowDepth else {
      try Self.walk(from: top, feature, in: branch, body)
      return
    }
    try Self.walk(from: shallowTop, feature, in: branch, body)
    let key = DeepKey(feature: ObjectIdentifier(feature), branch: branch, contextHash: contextHash(context))
    for frame in deepFrames[key] ?? [] { try body(frame.pointee) }
  }

  private static func walk(
    from top: UnsafeMutablePointer<LoadFrame>?, _ feature: any Feature.Type, in branch: ObjectIdentifier,
    _ body: (LoadFrame) throws -> Void
  ) rethrows {
    var frame = top
    while let current = frame {
      if current.pointee.branch == branch, current.pointee.feature == feature { try body(current.pointee) }
      frame = current.pointee.parent
    }
  }

  /// Indexes `frame`, just pushed at ``shallowDepth`` or deeper, which loads a `context`.
  @usableFromInline
  func indexDeepFrame<F: Feature>(_ frame: UnsafeMutablePointer<LoadFrame>, context: F.Context, of feature: F.Type) {
    if frame.pointee.depth == Self.shallowDepth { shallowTop = frame.pointee.parent }
    let key = DeepKey(
      feature: ObjectIdentifier(feature), branch: frame.pointee.branch, contextHash: contextHash(context))
    deepFrames[key, default: []].append(frame)
  }

  /// Removes `frame`, about to be popped, from the index.
  @usableFromInline
  func unindexDeepFrame<F: Feature>(_ frame: UnsafeMutablePointer<LoadFrame>, context: F.Context, of feature: F.Type) {
    let key = DeepKey(
      feature: ObjectIdentifier(feature), branch: frame.pointee.branch, contextHash: contextHash(context))
    deepFrames[key]?.removeLast()
    if deepFrames[key]?.isEmpty == true { deepFrames[key] = nil }
    if frame.pointee.depth == Self.shallowDepth { shallowTop = nil }
  }

  /// A context's hash, or 0 for a context that cannot be hashed (which then compares as
  /// ``ContextComparison/incomparable``).
  private func contextHash<Context>(_ context: Context) -> Int {
    (context as? any Hashable)?.hashValue ?? 0
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

/// A load in progress that other requests wait for.
final class InFlight: @unchecked Sendable {
  let owner: LoadingThread
  // `outcome` is written once by the owner and read by waiters, both under `lock`.
  private var outcome: Result<AnyObject, any Error>?
  private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init(owner: LoadingThread) {
    self.owner = owner
    pthread_mutex_init(lock, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(lock)
    condition.deallocate()
    lock.deallocate()
  }

  /// Whether the owner has finished; a thread whose wait edge points at a finished load is no
  /// longer blocked by it, even before it removes the edge.
  var isFinished: Bool {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return outcome != nil
  }

  func finish(_ outcome: Result<AnyObject, any Error>) {
    pthread_mutex_lock(lock)
    self.outcome = outcome
    pthread_cond_broadcast(condition)
    pthread_mutex_unlock(lock)
  }

  enum Wait {
    case finished(Result<AnyObject, any Error>)
    /// Waiting would close a loop of threads waiting for each other: the frames of the threads in
    /// the loop, starting with the owner of this load.
    case deadlock([LoadStep])
  }

  /// Blocks until the owner finishes, unless waiting would deadlock.
  func wait(as waiter: LoadingThread) -> Wait {
    let loop = LoadingThread.waits.withLock { waits -> [LoadStep]? in
      var owners: [LoadingThread] = []
      var load: InFlight? = self
      while let current = load, !current.isFinished {
        // A loop: each owner on it waits for an unfinished load that can only finish after this
        // thread's, so none can return from its wait and pop its frames while they are read.
        if current.owner === waiter { return owners.flatMap(\.frames) }
        owners.append(current.owner)
        load = waits[ObjectIdentifier(current.owner)]
      }
      waits[ObjectIdentifier(waiter)] = self
      return nil
    }
    if let loop { return .deadlock(loop) }
    defer { LoadingThread.waits.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(waiter)) } }
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while true {
      if let outcome { return .finished(outcome) }
      pthread_cond_wait(condition, lock)
    }
  }
}
