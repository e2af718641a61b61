/// Where the load of one key stands: the one state machine every load follows, and the one claim
/// that decides who runs a loader.
///
/// Two places hold such a state, each in its own encoding:
/// - a branch's ``LoadTable`` holds the loads in flight under the branch's lock, for every kind
///   of load but a unit's, until a request or a close waits for it;
/// - a unit's word (``UnitState``) holds the state of a cacheable without a context, cached in
///   place, and changes it with one compare-and-exchange, without a lock.
///
/// Both apply ``claim(isOpen:starting:)`` to the state they hold and get a ``LoadClaim``. Only a
/// claim that owns the load changes the state, from idle to loading; the owner then ends the load
/// (``ended(loaded:)``).
///
/// | state | event | next state | answer |
/// |---|---|---|---|
/// | any | claim, the branch closing | same | ``LoadClaim/refused`` |
/// | loaded | claim | loaded | ``LoadClaim/cached`` |
/// | idle | claim | loading (the new load) | ``LoadClaim/own(_:)`` |
/// | loading | claim | loading (the same load) | ``LoadClaim/join(_:)`` |
/// | loading | the load ends, its instance published | loaded | its waiters read the instance |
/// | loading | the load fails | idle | its waiters get the failure; the next claim loads anew |
///
/// A failure is not a state: it is not cached, and the key is idle again. A table keeps only its
/// loading keys, and tells idle from loaded by whether the branch's storage holds the instance.
@usableFromInline
package enum LoadState<Load> {
  /// Nothing is loaded, and no load is in flight.
  case idle
  /// `load` is in flight: a request's claim owns it, and others wait for it.
  case loading(Load)
  /// The instance is cached.
  case loaded

  /// A request's claim: what the request does next. When it answers ``LoadClaim/own(_:)``, the
  /// holder of the state makes it `loading` with that load; every other answer leaves the state
  /// as it is.
  ///
  /// - Parameters:
  ///   - isOpen: Whether the branch is open: a closing branch starts no load.
  ///   - starting: Makes the load the request will own, if it comes to that.
  @inlinable @inline(__always)
  package func claim(isOpen: Bool, starting: () -> Load) -> LoadClaim<Load> {
    guard isOpen else { return .refused }
    switch self {
    case .loaded: return .cached
    case .loading(let load): return .join(load)
    case .idle: return .own(starting())
    }
  }

  /// The state once the load in flight ends: loaded with its instance published, or idle again
  /// after a failure, which is not cached.
  @inlinable @inline(__always)
  package static func ended(loaded: Bool) -> LoadState { loaded ? .loaded : .idle }
}

/// What a claim (``LoadState/claim(isOpen:starting:)``) tells its request to do.
@usableFromInline
package enum LoadClaim<Load> {
  /// The branch is closing: no load may start; throw `FeaturesClosed`.
  case refused
  /// The instance is cached: read it.
  case cached
  /// Wait for this load, which another request started.
  case join(Load)
  /// Run this load, which the request now owns, outside every lock; then end it.
  case own(Load)
}
