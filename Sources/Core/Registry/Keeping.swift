/// Where a branch keeps the instances of a registered feature: decided once, as a scope's table is
/// built, from the lifetime and the time-to-live; every consumer switches over it.
///
/// A renewal may later move a cacheable's instances from in place to held (``UnitState/relocate()``,
/// ``Multiton`` retiring a context): that is the branch's state, not the registry's decision.
@usableFromInline
package enum Keeping: UInt8, Sendable {
  /// Not kept by a branch: a static value lives in its registration, a disposable's instance with
  /// its requester.
  case nowhere
  /// In place, in the registering branch's unit, read without a lock: a cacheable without a context.
  case inPlace
  /// In the multiton's lock-free table in the registering branch's unit, one per context value.
  case perContext
  /// Under the registering branch's lock, where a request can tell the instance's age: instances
  /// with a time-to-live, with or without a context.
  case held

  /// Where instances of `lifetime` are kept, with a time-to-live or not (`expires`); a feature in
  /// conflict (`lifetime` `nil`) is not kept.
  init(_ lifetime: Lifetime?, expires: Bool) {
    switch lifetime {
    case nil, .static?, .disposable?: self = .nowhere
    case .cacheable?: self = expires ? .held : .inPlace
    case .cacheablePerContext?: self = expires ? .held : .perContext
    }
  }

  /// Whether a branch caches the instances: only those can be renewed, or recorded as received.
  package var isCached: Bool {
    switch self {
    case .nowhere: false
    case .inPlace, .perContext, .held: true
    }
  }
}
