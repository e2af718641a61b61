/// The loads in flight in one branch that requests and closes wait for, by what they load: one
/// state machine, one way to wait, and one answer to a close, for every kind of load.
///
/// A value in the branch's `state`, changed only under its lock. It is generic over what it keys
/// loads by (a ``LoadKey`` in a branch) and the load it keeps in flight (a ``LoadInFlight``), so
/// that tests drive it with plain values.
///
/// Every load is claimed by one ``LoadState/claim(isOpen:starting:)``; the table holds the state
/// of all but one kind: a multiton's context, an instance the branch holds under its lock (it
/// expires, or was renewed), every async load, and a test container's loads. A cacheable without a
/// context, loaded in place, keeps its state in its unit's word (``UnitState``), claimed without a
/// lock: a load nobody waits for never takes the lock. The first request that waits for one has the
/// table ``track(_:_:)`` it, so that it is waited for, and found by a close, as every other load is.
///
/// Each key follows ``LoadState``: the table keeps the load of every key in the `loading` state,
/// and tells idle from loaded by whether the branch's storage holds the instance. Beyond the claim:
///
/// | state | event | next state | action |
/// |---|---|---|---|
/// | idle | ``track(_:_:)``: a request waits for a unit's load | loading (that load) | wait for it |
/// | loading | ``inFlight(of:)``: another request waits for a unit's load | loading | wait for it |
/// | loading | ``finish(_:)``, once the instance is published (or the load failed) | idle | resume the load's waiters with its outcome |
/// | loading | a close (``inFlight``) | loading | the close waits for the load to end |
///
/// "Loaded" is the instance, published in the branch's storage (a unit, a multiton's table, the
/// held instances) in the critical section that finishes the load, and looked up in the one that
/// claims. A close never cancels a load; it waits for every load in flight, and no load starts once
/// the branch is closing.
package struct LoadTable<Key: Hashable, Load> {
  /// The load in flight for each key that has one; a key without is idle.
  private var loading: [Key: Load] = [:]

  /// An idle table.
  package init() {}

  /// A request for `key`.
  ///
  /// - Parameters:
  ///   - isOpen: Whether the branch is open (its lifecycle's answer, under the same lock).
  ///   - isCached: Whether the branch's storage holds the instance.
  ///   - starting: Makes the load the request will own, if it comes to that.
  package mutating func claim(
    _ key: Key, isOpen: Bool, isCached: Bool, starting: () -> Load
  ) -> LoadClaim<Load> {
    let state: LoadState<Load> = isCached ? .loaded : loading[key].map { .loading($0) } ?? .idle
    let claim = state.claim(isOpen: isOpen, starting: starting)
    if case .own(let load) = claim { loading[key] = load }
    return claim
  }

  /// A load of `key` claimed through its unit's word, which a request now waits for: the table
  /// tracks it from now on, for every later request and close to wait for too.
  package mutating func track(_ key: Key, _ load: Load) {
    precondition(loading[key] == nil, "a unit's load of \(key) is tracked while another is in flight")
    loading[key] = load
  }

  /// The load of `key` in flight, if any: what a request waits for once it found a unit claimed.
  package func inFlight(of key: Key) -> Load? { loading[key] }

  /// Ends the load of `key`: its instance is published by now, or it failed. Its owner then
  /// resumes those waiting with its outcome.
  ///
  /// - Returns: The load that ended; `nil` for a unit's load that nobody waited for, which the
  ///   table never tracked.
  @discardableResult
  package mutating func finish(_ key: Key) -> Load? {
    loading.removeValue(forKey: key)
  }

  /// The loads in flight: what a close waits for.
  package var inFlight: [Load] { Array(loading.values) }

  /// Whether no load is in flight.
  package var isIdle: Bool { loading.isEmpty }
}

/// A load a ``LoadTable`` keeps in flight in a branch, as a close sees it: a synchronous load
/// (``InFlight``) or an async one (``AsyncLoadNode``).
protocol LoadInFlight: WaitGraph.Node {
  /// Suspends until the load ends, whatever its outcome: how a closing branch waits for it.
  func ended() async

  /// The requests and the closes waiting for the load now: read by ``Features/waits``, a test hook.
  var waits: (requests: Int, closes: Int) { get }
}

extension InFlight: LoadInFlight {}
extension AsyncLoadNode: LoadInFlight {}
