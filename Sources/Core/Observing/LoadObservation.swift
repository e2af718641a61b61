/// A load in an observed tree, from its start to its end: what the observer is told of it.
@usableFromInline
struct LoadObservation {
  private let observer: any FeaturesObserver
  private let feature: any Feature.Type
  private let binding: Binding
  private let branchPath: ScopePath
  private let requesters: [LoadStep]
  private let requestedAt: SourceLocation
  private let start: ContinuousClock.Instant
  /// The root's clock, which the load's duration is measured on (a test clock drives it), and when
  /// the load began on it.
  private let clock: TreeRenewals
  private let began: Duration

  /// Starts observing a load of `feature` through `entry` in `branch`, requested at `location`.
  @usableFromInline
  init(_ feature: any Feature.Type, entry: FeatureTable.EntryReference, in branch: Branch, at location: SourceLocation)
  {
    self.init(feature, binding: entry.binding.object, in: branch, at: location)
  }

  init(_ feature: any Feature.Type, binding: Binding, in branch: Branch, at location: SourceLocation) {
    observer = branch.definition.observer!  // observed trees only
    self.feature = feature
    self.binding = binding
    branchPath = branch.path
    requesters = LoadingThread.currentPath
    requestedAt = location
    start = .now
    clock = branch.definition.renewals
    began = clock.now()
  }

  /// Tells the observer the load ended, with `failure` if it threw.
  @usableFromInline
  func end(failure: (any Error)?) {
    observer.loaded(
      LoadEvent(
        feature: feature, binding: binding, branchPath: branchPath, requesters: requesters, requestedAt: requestedAt,
        start: start, duration: clock.now() - began, error: failure))
  }
}

extension LoadObservation {
  /// Runs the loader of `entry` in `branch`, in an observed tree: timed, and reported to the
  /// observer when it ends. Out of line: an unobserved load pays only the check.
  @usableFromInline @inline(never)
  static func load<F: Feature>(
    _ feature: F.Type, context: F.Context, entry: FeatureTable.EntryReference, in branch: Branch,
    at location: SourceLocation
  ) throws -> Loaded<F> {
    let observation = LoadObservation(feature, entry: entry, in: branch, at: location)
    do {
      let loaded = try LoadingThread.runLoader(
        on: LoadingThread.currentReference, feature, context: context, entry: entry, in: branch, at: location)
      observation.end(failure: nil)
      return loaded
    } catch {
      observation.end(failure: error)
      throw error
    }
  }
}
