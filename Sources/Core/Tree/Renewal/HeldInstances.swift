/// The instances a branch holds under its lock rather than in place: those of features with a
/// time-to-live, and those renewed since their first instance was cached, whose readers take the
/// lock. With them, the records of which cached instances were built from which, for renewals.
///
/// A value in the branch's `state`, changed only under its lock.
struct HeldInstances {
  /// One held instance, and when it was loaded and expires on the tree's clock.
  struct Held {
    /// A `Box<F>` of the feature's instance.
    let box: AnyObject
    let loadedAt: Duration
    let expiresAt: Duration?
  }

  /// The held instances by key.
  var instances: [LoadKey: Held] = [:]
  /// The multiton contexts renewed since their first instance, which left the multiton's
  /// lock-free table: their instances are held here from then on. (A cacheable without a context
  /// says so in its unit's word.)
  var relocated: Set<LoadKey> = []
  /// The cached instances (in place or held) whose loads received others, in the order they were
  /// cached, by key.
  var records = OrderedTable<LoadKey, LoadRecord>()

  /// What a lookup of a held instance found.
  enum Lookup {
    case found(AnyObject)
    /// It expired, and was let go of: the caller renews it.
    case expired
    case missing
  }

  /// The instance held under `key`, unless it expired by `now`: an expired one is let go of.
  mutating func instance(for key: LoadKey, now: () -> Duration) -> Lookup {
    guard let held = instances[key] else { return .missing }
    if let expiresAt = held.expiresAt, now() >= expiresAt {
      instances[key] = nil
      return .expired
    }
    return .found(held.box)
  }

  /// Records that the instance just cached under `key` was built from `dependencies`, if any.
  mutating func record(_ key: LoadKey, dependencies: [Dependency]) {
    if !dependencies.isEmpty { records.append(LoadRecord(key: key, dependencies: dependencies), for: key) }
  }
}
