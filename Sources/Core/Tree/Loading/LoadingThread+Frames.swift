extension LoadingThread {
  /// Runs the loader of `entry` for `feature` in `branch`, with a frame for it on top of this
  /// thread's resolution path: the frame and its context live on this call's stack, and a deep path
  /// indexes the frame, so that a cycle is found without walking it.
  ///
  /// - Throws: ``CircularDependency`` when the path has this load already, and
  ///   ``FeatureLoadingFailed`` when the loader throws.
  @inlinable @inline(__always)
  func runLoader<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, in branch: Branch,
    at location: SourceLocation
  ) throws -> F {
    let parent = top
    let depth = parent.map { $0.pointee.depth &+ 1 } ?? 0
    // On a long path, the check hashes the context, and the frame is indexed with that hash.
    let contextHash = parent != nil ? try checkCycle(feature, in: branch, context: context, at: location) : 0
    // The context and the frame stay on this call's stack, where the path reads them in place.
    return try InPlace.with(context) { framedContext in
      let frame = LoadFrame(
        feature: feature, branch: ObjectIdentifier(branch), context: framedContext.erased,
        location: location, parent: parent, identity: BranchAnchor.identity(branch.anchor), depth: depth)
      return try InPlace.with(frame) { frame in
        top = frame
        if depth >= LoadingThread.shallowDepth {
          indexDeepFrame(frame, of: feature, context: context, hashedAs: contextHash)
        }
        defer {
          if depth >= LoadingThread.shallowDepth { unindexDeepFrame(frame) }
          top = parent
        }
        do {
          return try entry.payload.known(as: Loader<F>.self).borrow { loader in
            // A loader never sees its requester's current features (keeping them would leak the
            // requester's branch into a cached instance); only pay for the task-local when there are some.
            guard Features.hasCurrentInTask else { return try loader(context, branch.loaderFeatures) }
            return try Features.withCurrentInTask(branch.loaderFeatures) { try loader(context, branch.loaderFeatures) }
          }
        } catch {
          throw FeatureLoadingFailed.loaderThrew(error, feature, entry: entry, in: branch, thread: self, at: location)
        }
      }
    }
  }
}
