import Synchronization

/// Your view of a features tree from one branch: resolve features, read contexts, branch further.
///
/// A `Features` value is cheap to copy and safe to use from any task or thread. The one you get from
/// ``FeaturesRoot(observer:clock:file:line:_:)`` or ``branch(_:context:file:line:)`` keeps its branch
/// alive; the one a loader receives does not, so an instance may keep it without leaking its branch,
/// and neither does a branch made through it. Once that branch is released, requests through those
/// features, or through a branch made from them, throw ``FeaturesReleased``.
///
/// ```swift
/// let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
/// let greeter: Greeter = try session.instance()
/// try greeter.greet()
/// ```
public struct Features: @unchecked Sendable {
  // Sendable: `owner` is a `BranchHandle` or a `BranchAnchor`, both safe to share between threads
  // (`BranchAnchor` is a `ManagedBuffer`, which cannot be declared `Sendable`); `address` is a word.
  /// What these features keep alive: the branch's ``BranchHandle``, in the features users hold;
  /// the branch's anchor, in a loader's, which does not keep the branch alive. Never read:
  /// `address` is.
  @usableFromInline let owner: AnyObject
  /// What the hot paths read instead, a plain word that the optimiser cannot retain. Its two low
  /// bits say what it is (objects are aligned to 16 bytes, so they are free):
  /// - `00`: user features; the branch's address. Resolution reads the branch directly.
  /// - `01`: a loader's features; the anchor's address (see ``anchor``).
  /// - `10`: user features of a branch below a tether (``Branch/tether``); the branch's address.
  ///   Requests take the slow path, which holds the tether first.
  @usableFromInline let address: UInt

  /// The tag of a loader's features.
  @usableFromInline static var loaderTag: UInt { 0b01 }
  /// The tag of user features of a tethered branch.
  @usableFromInline static var tetheredTag: UInt { 0b10 }
  @usableFromInline static var tags: UInt { 0b11 }

  /// Features that keep `branch`, a new branch, alive: what users hold.
  package init(_ branch: Branch) {
    self.init(adopting: UncountedReference.retaining(branch))
  }

  /// Features that keep `branch`, a new branch, alive, taking over the reference it carries.
  @inlinable
  init(adopting branch: UncountedReference<Branch>) {
    owner = BranchHandle(adopting: branch)
    let isTethered = branch.borrow { $0.isTethered }
    address = branch.address | (isTethered ? Self.tetheredTag : 0)
  }

  /// Features handed to a loader of `anchor`'s branch: they do not keep it alive.
  init(anchor: BranchAnchor) {
    owner = anchor
    address = UncountedReference(anchor).address | Self.loaderTag
  }

  /// The anchor of features known to be a loader's (a branch's `loaderFeatures`), from their address
  /// alone (reading the whole features would retain their owner): no tag test in release builds;
  /// debug builds check the tag.
  @inlinable @inline(__always)
  static func loaderAnchor(at address: UInt) -> UncountedReference<BranchAnchor> {
    assert(address & tags == loaderTag, "not a loader's features")
    return UncountedReference(address: address & ~tags)
  }

  /// Whether these features keep their branch alive (user features), rather than a loader's.
  @inlinable
  var holdsBranch: Bool { address & Self.loaderTag == 0 }

  /// The branch of user features, which they keep alive, when requests may read it directly.
  @inlinable @inline(__always)
  var retainedBranch: UncountedReference<Branch>? {
    address & Self.tags == 0 ? UncountedReference(address: address) : nil
  }

  /// The anchor of a loader's features, which they keep alive.
  @inlinable @inline(__always)
  var anchor: UncountedReference<BranchAnchor>? {
    address & Self.tags == Self.loaderTag
      ? UncountedReference(address: address & ~Self.tags) : nil
  }

  /// The branch these features view, alive as long as the returned reference. Its ancestors are
  /// too unless it has a ``Branch/tether``: use ``withBranch(at:_:)`` to resolve through it.
  @usableFromInline
  package func branch(at location: SourceLocation) throws -> Branch {
    if let anchor {
      if let branch = anchor.object.branch { return branch }
      throw Self.released(at: location)
    }
    return UncountedReference<Branch>(address: address & ~Self.tags).object
  }

  /// The branch, if it is certainly alive without taking a hold on it: always in user
  /// features; in a loader's, while the innermost load on this thread is its branch's, since that
  /// load keeps it alive (see ``BranchAnchor/identity(_:)``).
  @inlinable @inline(__always)
  var borrowedBranch: UncountedReference<Branch>? {
    if let branch = retainedBranch { return branch }
    guard let anchor else { return nil }
    let top = LoadingThread.currentReference.borrow { $0.top }
    guard top?.pointee.identity == BranchAnchor.identity(anchor) else { return nil }
    return anchor.borrow { $0.reference! }
  }

  /// Runs `body` with the branch these features view, kept alive for the call as cheaply as can be:
  /// borrowed (see ``borrowedBranch``), and only otherwise by a hold on it (see ``BranchAnchor``),
  /// and on its tethers when it has some.
  @inlinable
  package func withBranch<R>(at location: SourceLocation, _ body: (Branch) throws -> R) throws -> R {
    if let branch = borrowedBranch { return try branch.borrow(body) }
    return try withHeldBranch(at: location, body)
  }

  /// Runs `body` with the branch these features view once it is certain to be open: the gate every
  /// request that is not an inlined cached read passes, so that a closed branch (or one below a
  /// closed branch) answers nothing but ``FeaturesClosed``.
  ///
  /// - Parameter request: What the caller asks, for the diagnostic of a closed branch.
  package func withOpenBranch<R>(
    _ request: @autoclosure () -> FeaturesClosed.Request, at location: SourceLocation, _ body: (Branch) throws -> R
  ) throws -> R {
    try withBranch(at: location) { branch in
      if branch.isClosed { throw FeaturesClosed(request(), through: branch, requestedAt: location) }
      return try body(branch)
    }
  }

  /// ``withBranch(at:_:)`` when the branch is not borrowed.
  @usableFromInline
  func withHeldBranch<R>(at location: SourceLocation, _ body: (Branch) throws -> R) throws -> R {
    let branch = try branch(at: location)
    guard let tether = branch.tether else { return try body(branch) }
    guard let hold = tether.holdTethers() else { throw Self.released(at: location) }
    return try withExtendedLifetime(hold) { try body(branch) }
  }

  /// ``withBranch(at:_:)`` for an async body.
  func withBranch<R>(at location: SourceLocation, _ body: (Branch) async throws -> R) async throws -> R {
    let branch = try branch(at: location)
    guard let tether = branch.tether else { return try await body(branch) }
    guard let hold = tether.holdTethers() else { throw Self.released(at: location) }
    defer { withExtendedLifetime(hold) {} }
    return try await body(branch)
  }

  /// Whether the task has current features (``withCurrent(_:)``).
  ///
  /// A task-local read costs a load as much as the rest of it, so it is skipped until some code
  /// has set current features at all.
  @inlinable
  static var hasCurrentInTask: Bool {
    currentInTaskWasSet.load(ordering: .relaxed) && readCurrentInTask()
  }

  @usableFromInline
  static func readCurrentInTask() -> Bool { currentInTask != nil }

  /// Whether current features were ever set in this process; only ever goes from false to true.
  ///
  /// Relaxed is enough: a task sees the current features of another only as a child task, whose
  /// creation orders this store before the child's reads.
  @usableFromInline
  static let currentInTaskWasSet = Atomic<Bool>(false)

  /// Call before setting current features (`$currentInTask.withValue`): loads check them from then on.
  @usableFromInline
  static func willSetCurrentInTask() {
    currentInTaskWasSet.store(true, ordering: .relaxed)
  }

  /// Runs `body` with `features` as the task's current features.
  @usableFromInline
  static func withCurrentInTask<R>(_ features: Features, _ body: () throws -> R) rethrows -> R {
    try $currentInTask.withValue(features, operation: body)
  }

  /// The error of a request through features whose branch was released.
  @usableFromInline
  static func released(at location: SourceLocation) -> FeaturesReleased {
    FeaturesReleased(at: location)
  }

  /// Resolves a feature with a context: the primitive every other `instance` calls.
  ///
  /// A static feature is its registered value; a disposable is loaded for this request with this
  /// branch's view; a cacheable is loaded once in the nearest branch whose scope registers it (once
  /// per context value) and then read from its cache.
  ///
  /// ```swift
  /// let logger: Logger = try features.instance(context: "billing")
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - context: The context passed to the loader, and for a cacheable, the key of its instance.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance.
  /// - Throws: ``FeatureUndefined``, ``FeatureLoadingFailed``, ``CircularDependency``,
  ///   ``FeatureRegistrationConflict`` or ``FeaturesReleased``.
  @inlinable @inline(__always)
  public func instance<F: Feature>(
    of feature: F.Type = F.self, context: F.Context, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F {
    // Inlined into the caller: a cached instance or a static value of user features is read with
    // a few loads and no call. Anything else (a load, features handed to a loader, a failure) is
    // specialised too, but out of line, where the optimiser may retain the branch without moving
    // that retain onto this path.
    if let branch = retainedBranch, let instance = Branch.peek(feature, in: branch) {
      return instance
    }
    return try resolve(feature, context: context, at: SourceLocation(fileID: file, line: line))
  }

  /// Resolves through the branch of these features, whatever it takes.
  ///
  /// A chain of loads stacks this frame once per link, so what a request does through user
  /// features, or when its branch is not borrowed, is in a call of its own (inlined in release
  /// builds), and what it receives is recorded once the request returned.
  @inlinable @inline(never)
  func resolve<F: Feature>(_ feature: F.Type, context: F.Context, at location: SourceLocation) throws -> F {
    if let branch = retainedBranch { return try Self.resolve(feature, context: context, in: branch, at: location) }
    // A loader's features: the thread's state answers whether the branch is borrowed, and then
    // serves the load, if the request is one. What the request receives is recorded for the load
    // (see ``LoadingThread/recordReceived(_:context:through:epoch:)``), with the renewal epoch read
    // before it.
    let thread = LoadingThread.currentReference
    guard let anchor, thread.borrow({ $0.top?.pointee.identity }) == BranchAnchor.identity(anchor) else {
      return try resolveThroughHeldBranch(feature, context: context, at: location, thread: thread)
    }
    let epoch = thread.borrow(Self.renewalEpoch)
    let branch = anchor.borrow { $0.reference! }
    let instance = try branch.borrow { try $0.resolve(feature, context: context, at: location, thread: thread) }
    if let epoch {
      branch.borrow { branch in
        thread.borrow { $0.recordReceived(feature, context: context, through: branch, epoch: epoch) }
      }
    }
    return instance
  }

  /// ``resolve(_:context:at:)`` through user features, which keep `branch` alive.
  @inlinable @inline(__always)
  static func resolve<F: Feature>(
    _ feature: F.Type, context: F.Context, in branch: UncountedReference<Branch>, at location: SourceLocation
  ) throws -> F {
    try branch.borrow { try $0.resolve(feature, context: context, at: location) }
  }

  /// ``resolve(_:context:at:)`` when the branch is not borrowed: features of a tethered branch, or
  /// a loader's features used outside its load.
  @inlinable @inline(__always)
  func resolveThroughHeldBranch<F: Feature>(
    _ feature: F.Type, context: F.Context, at location: SourceLocation, thread: UncountedReference<LoadingThread>
  ) throws -> F {
    let epoch = anchor == nil ? nil : thread.borrow(Self.renewalEpoch)
    return try withHeldBranch(at: location) { branch in
      let instance = try branch.resolve(feature, context: context, at: location)
      if let epoch {
        thread.borrow { $0.recordReceived(feature, context: context, through: branch, epoch: epoch) }
      }
      return instance
    }
  }

  /// The renewal epoch to record with what a loader's request receives, read before the request;
  /// `nil` when no cacheable loads on this thread or in this task, so nothing is recorded (see
  /// ``LoadingThread/recordReceived(_:context:through:epoch:)``).
  @usableFromInline
  static func renewalEpoch(recordingOn thread: LoadingThread) -> UInt64? {
    guard thread.cachingLoads != 0 || AsyncFrame.currentIfAny != nil else { return nil }
    return TreeRenewals.epoch
  }

  /// Resolves a feature that takes no context: a static feature or a disposable.
  ///
  /// ```swift
  /// let printer: Printer = try features.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:)``.
  @inlinable @inline(__always)
  public func instance<F: Feature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F where F.Context == Void {
    try instance(of: feature, context: (), file: file, line: line)
  }

  /// Resolves a cacheable feature that takes no context: the one instance of its branch.
  ///
  /// ```swift
  /// let greeter: Greeter = try session.instance()
  /// ```
  ///
  /// - Parameters:
  ///   - feature: The feature type; inferred from the result when omitted.
  ///   - file: Where the request is made; captured for you.
  ///   - line: Where the request is made; captured for you.
  /// - Returns: The instance.
  /// - Throws: See ``instance(of:context:file:line:)``.
  @inlinable @inline(__always)
  public func instance<F: CacheableFeature>(
    of feature: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line
  ) throws -> F where F.Context == NoContext {
    try instance(of: feature, context: NoContext(), file: file, line: line)
  }
}

extension Features: CustomStringConvertible {
  /// Where these features are in their tree: the scopes from the root to their branch, with each
  /// branch's context.
  ///
  /// ```swift
  /// print(session)  // Root › SessionScope(Session(user: "ann"))
  /// ```
  ///
  /// Features whose branch was released describe themselves as such.
  public var description: String {
    let location = SourceLocation(fileID: #fileID, line: #line)
    return (try? withBranch(at: location) { $0.path.rendered }) ?? "Features(released)"
  }
}
