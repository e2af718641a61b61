extension LoadingThread {
  /// A request for `feature` in `branch` while this thread is already loading it (same branch and
  /// context) can only be a cycle.
  ///
  /// Costs a walk of the path's frames while it is shorter than ``LoadingThread/shallowDepth``, and
  /// no more on a longer one (see ``LoadingThread``).
  @inlinable @inline(__always)
  func checkCycle<F: Feature>(
    _ feature: F.Type, in branch: Branch, context: F.Context, at location: SourceLocation
  ) throws -> Int {
    guard let top, top.pointee.depth < Self.shallowDepth else {
      return try checkCycleOnLongPath(feature, in: branch, context: context, at: location)
    }
    var frame = Optional(top)
    while let current = frame {
      if current.pointee.branch == ObjectIdentifier(branch), current.pointee.feature == feature {
        // The rest of the walk, off the inlined path, compares contexts.
        try checkRepeated(feature, in: branch, context: context, from: current, at: location)
        return 0
      }
      frame = current.pointee.parent
    }
    return 0
  }

  /// ``checkCycle(_:in:context:at:)`` on a path of ``shallowDepth`` frames or more.
  ///
  /// - Returns: The context's hash, which the request's own frame is indexed with.
  @usableFromInline
  func checkCycleOnLongPath<F: Feature>(
    _ feature: F.Type, in branch: Branch, context: F.Context, at location: SourceLocation
  ) throws -> Int {
    let matcher = ContextMatcher(context)
    let hash = matcher.hash()
    try indexedFramesLoading(feature, in: ObjectIdentifier(branch), contextHash: hash) { frame in
      try check(matcher(frame.context), feature, in: branch, frame: frame, at: location)
    }
    return hash
  }

  /// `first` loads `feature` in `branch`, as may frames further up the path: a cycle if one of
  /// them has the same context.
  @usableFromInline
  func checkRepeated<F: Feature>(
    _ feature: F.Type, in branch: Branch, context: F.Context, from first: InPlace<LoadFrame>,
    at location: SourceLocation
  ) throws {
    let matcher = ContextMatcher(context)
    var frame = Optional(first)
    while let current = frame {
      if current.pointee.branch == ObjectIdentifier(branch), current.pointee.feature == feature {
        try check(matcher(current.pointee.context), feature, in: branch, frame: current.pointee, at: location)
      }
      frame = current.pointee.parent
    }
  }

  /// Throws the cycle a repeated load closes, unless its context differs; when contexts cannot be
  /// compared, the cycle says so.
  private func check<F: Feature>(
    _ comparison: ContextComparison, _ feature: F.Type, in branch: Branch, frame: LoadFrame,
    at location: SourceLocation
  ) throws {
    switch comparison {
    case .different:
      return
    case .same:
      throw CircularDependency(frames, closingWith: feature, in: branch, loopStart: frame.depth, at: location)
    case .incomparable:
      throw CircularDependency(
        frames, closingWith: feature, in: branch, loopStart: frame.depth, incomparable: F.Context.self,
        at: location)
    }
  }
}
