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
  @usableFromInline let context: ErasedInPlace
  @usableFromInline let location: SourceLocation
  @usableFromInline let parent: InPlace<LoadFrame>?
  /// The identity (``BranchAnchor/identity(_:)``) of the loading branch.
  @usableFromInline let identity: UInt64
  /// How many frames are below this one on the thread's path.
  @usableFromInline let depth: Int

  @inlinable @inline(__always)
  init(
    feature: any Feature.Type, branch: ObjectIdentifier, context: ErasedInPlace, location: SourceLocation,
    parent: InPlace<LoadFrame>?, identity: UInt64, depth: Int
  ) {
    self.feature = feature
    self.branch = branch
    self.context = context
    self.location = location
    self.parent = parent
    self.identity = identity
    self.depth = depth
  }

  /// Runs `body` with `context`, and the frame `make` makes for it from where it is, both in place
  /// on this call's stack for the call: a load's frame and context cost no allocation.
  ///
  /// One call for both, not ``InPlace/with(_:_:)`` twice: a chain of loads stacks these frames once
  /// per link, and in a debug build each closure between them is one more frame.
  @inlinable @inline(__always)
  static func with<Context, R>(
    _ context: Context, _ make: (ErasedInPlace) -> LoadFrame, _ body: (InPlace<LoadFrame>) throws -> R
  ) rethrows -> R {
    try withUnsafePointer(to: context) { context in
      try withUnsafePointer(to: make(ErasedInPlace(UnsafeRawPointer(context)))) { try body(InPlace($0)) }
    }
  }

  /// The frame as a value that outlives it.
  var step: LoadStep {
    LoadStep(feature: feature, branch: branch, context: Self.context(of: feature, at: context), location: location)
  }

  private static func context<F: Feature>(of feature: F.Type, at context: ErasedInPlace) -> any Sendable {
    context.load(as: F.Context.self)
  }
}

/// One step of a resolution path: a feature being loaded, where, with which context, and where it
/// was requested. What diagnostics and async loads keep; a thread's loads keep ``LoadFrame``s.
struct LoadStep: Sendable {
  let feature: any Feature.Type
  let branch: ObjectIdentifier
  let context: any Sendable
  let location: SourceLocation
}
