/// The instances a branch holds under its lock rather than in place (with a time-to-live, or renewed
/// since their first), and which cached instances were built from which.
struct HeldInstances {
  /// Times are on the tree's clock.
  struct Held {
    /// A `Box<F>` of the feature's instance.
    let box: AnyObject
    let loadedAt: Duration
    let expiresAt: Duration?
    /// The number its teardown is owed under, if it has one: what its renewal forgets.
    let teardown: Int?
    /// Whether its load received cached instances, so that ``records`` holds its record.
    let hasRecord: Bool
  }

  var instances: [LoadKey: Held] = [:]
  /// The instances a lookup found expired and let go of, until their renewal, started right
  /// after, forgets them: what lets that renewal find their teardown and record without a search.
  var expired: [LoadKey: Held] = [:]
  /// The multiton contexts renewed since their first instance, which left the lock-free table.
  var relocated: Set<LoadKey> = []
  /// The cached instances whose loads received others, in the order they were cached: appended by
  /// loads (no hashing on their path), removed by renewals, a batch in one pass.
  var records: [LoadRecord] = []

  /// What a lookup found; an expired instance was let go of, for the caller to renew.
  enum Lookup {
    case found(AnyObject)
    case expired
    case missing
  }

  mutating func instance(for key: LoadKey, now: () -> Duration) -> Lookup {
    guard let held = instances[key] else { return .missing }
    if let expiresAt = held.expiresAt, now() >= expiresAt {
      instances[key] = nil
      expired[key] = held
      return .expired
    }
    return .found(held.box)
  }

  /// - Parameter teardown: The number the instance's teardown is owed under, if it has one.
  mutating func record(_ key: LoadKey, dependencies: [Dependency], teardown: Int?) {
    if !dependencies.isEmpty { records.append(LoadRecord(key: key, dependencies: dependencies, teardown: teardown)) }
  }
}
