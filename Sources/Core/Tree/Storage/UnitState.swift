import Synchronization

/// The first word of a unit in a branch's storage (see ``UnitLayout``): the only code that reads or
/// writes its encoding.
///
/// A cacheable's unit (its instance follows the word) holds one of:
/// - `0`: nothing loaded yet;
/// - ``loaded``: the instance is stored, and never written again;
/// - the address of the owning thread's ``LoadingThread`` with bit 0 set: a load in progress, and
///   bit 1 set too once another request waits for it (its ``InFlight`` is then in the branch's
///   `state`, registered in the same critical section that set the bit).
///
/// The word holds a ``LoadState``, the state machine every load follows: the first request claims an
/// empty unit with one compare-and-exchange (``claim(for:isOpen:)``) and ends its load with one
/// exchange (``settle(loaded:)``); a waiter marks the load waited
/// (``markWaited()``) under the branch's lock, so the owner knows to take that lock as it settles.
///
/// A renewal (``ForgottenInstance/forgetting(_:in:isLetGo:)``) turns a loaded unit into ``relocated``: its instance stays
/// in place, never written again, for readers that may still be copying it, and the branch holds
/// every later instance of the feature under its lock.
///
/// A multiton's unit holds `0` or its ``Multiton``, retained, made on first use
/// (``multiton(_:)``).
@usableFromInline
package struct UnitState {
  @usableFromInline let word: SharedWord

  @inlinable @inline(__always)
  package init(_ word: SharedWord) {
    self.word = word
  }

  /// A load in progress: bit 0; with requests waiting for it: bit 1 as well.
  @usableFromInline static var loadingTag: UInt { 0b01 }
  @usableFromInline static var waitedTag: UInt { 0b10 }
  @usableFromInline static var tags: UInt { 0b11 }
  /// An instance stored: no thread's address, since those are aligned to 16 bytes.
  @usableFromInline static var loaded: UInt { 0b100 }
  /// An instance stored and renewed since: the branch holds the feature's instances elsewhere.
  @usableFromInline static var relocated: UInt { 0b1000 }

  /// Whether the unit's instance is stored; an acquiring load, so that the instance may be read.
  @inlinable @inline(__always)
  package var isLoaded: Bool { word.load(ordering: .acquiring) == Self.loaded }

  /// The load state the word holds (``LoadState``), a load being its owner thread; `nil` once the
  /// unit is relocated, when the branch's ``LoadTable`` holds the feature's loads.
  @inlinable @inline(__always)
  static func loadState(of stored: UInt) -> LoadState<UncountedReference<LoadingThread>>? {
    if stored == 0 { return .idle }
    if stored & loadingTag != 0 { return .loading(owner(of: stored)) }
    return stored == loaded ? .loaded : nil
  }

  /// The word that holds `state`.
  @inlinable @inline(__always)
  static func word(holding state: LoadState<UncountedReference<LoadingThread>>) -> UInt {
    switch state {
    case .idle: 0
    case .loading(let owner): owner.address | loadingTag
    case .loaded: loaded
    }
  }

  /// A request's claim of the unit, for a load on `thread`: ``LoadState/claim(isOpen:starting:)``
  /// applied to the word, a claim that owns the load setting it with one compare-and-exchange.
  ///
  /// - Returns: The claim's answer (`refused` on a closing branch, whatever the word holds); for an
  ///   open claim, `nil` once the unit is relocated: the branch's ``LoadTable`` holds the feature's
  ///   loads.
  @inlinable @inline(__always)
  package func claim(
    for thread: UncountedReference<LoadingThread>, isOpen: Bool
  ) -> LoadClaim<UncountedReference<LoadingThread>>? {
    // Taken for empty, as a unit is when a request claims it: the compare-and-exchange reads what
    // the word holds if it is not, and the claim is asked again of that.
    var stored: UInt = 0
    while true {
      guard let state = Self.loadState(of: stored) else { return nil }
      let claim = state.claim(isOpen: isOpen) { thread }
      guard case .own = claim else { return claim }
      // Sequentially consistent, as a close's scan of the units is: either the close sees this
      // claim, or the load sees the closed branch (see `UnitLoad.load(context:at:)`). The same
      // instruction on x86.
      let (claimed, found) = word.compareExchange(
        expected: stored, desired: Self.word(holding: .loading(thread)), ordering: .sequentiallyConsistent)
      if claimed { return claim }
      stored = found
    }
  }

  /// Whether a synchronous load holds the unit: what a close waits for.
  package var isClaimed: Bool { word.load(ordering: .sequentiallyConsistent) & Self.loadingTag != 0 }

  /// What a request that means to wait found.
  package enum Waited {
    /// The load ended meanwhile: look at the unit again.
    case ended
    /// Others wait for the load already: its ``InFlight`` is registered.
    case alreadyWaited
    /// This request marked the load waited, so it registers the ``InFlight`` of `owner`'s load.
    case marked(owner: UncountedReference<LoadingThread>)
  }

  /// Marks the load in progress as waited for. Call under the branch's lock, and register the
  /// load's ``InFlight`` there when this returns ``Waited/marked(owner:)``: the owner takes that
  /// lock to settle a waited load, so it cannot settle (nor its thread end) before.
  package func markWaited() -> Waited {
    while true {
      let stored = word.load(ordering: .acquiring)
      if stored & Self.loadingTag == 0 { return .ended }
      if stored & Self.waitedTag != 0 { return .alreadyWaited }
      let (marked, _) = word.compareExchange(
        expected: stored, desired: stored | Self.waitedTag, ordering: .acquiringAndReleasing)
      if marked {
        checkInDebugBuilds()
        return .marked(owner: Self.owner(of: stored))
      }
    }
  }

  /// Ends the load the caller claimed: the unit becomes loaded (its instance already stored) or
  /// empty again after a failure, which any request may then claim.
  ///
  /// - Returns: Whether requests wait for the load (their ``InFlight`` is in the branch's `state`).
  package func settle(loaded: Bool) -> Bool {
    let previous = word.exchange(Self.word(holding: .ended(loaded: loaded)), ordering: .acquiringAndReleasing)
    assert(previous & Self.loadingTag != 0, "a load settled a unit it had not claimed")
    return previous & Self.waitedTag != 0
  }

  /// Whether the unit's instance was renewed, so that the branch holds the feature's instances.
  package var isRelocated: Bool { word.load(ordering: .acquiring) == Self.relocated }

  /// Whether the unit holds an instance in place, current or renewed: what the branch destroys.
  package var holdsInstance: Bool {
    let stored = word.load(ordering: .acquiring)
    return stored == Self.loaded || stored == Self.relocated
  }

  /// Turns a loaded unit into a relocated one: call under the branch's lock, which the holding of
  /// the feature's later instances is under.
  ///
  /// - Returns: Whether the unit was loaded.
  package func relocate() -> Bool {
    defer { checkInDebugBuilds() }
    return word.compareExchange(expected: Self.loaded, desired: Self.relocated, ordering: .sequentiallyConsistent)
      .exchanged
  }

  /// Marks the instance stored by a load claimed some other way (an async load, claimed under the
  /// branch's lock): nothing else writes this unit.
  func publishLoaded() {
    assert(word.load(ordering: .relaxed) == 0, "an async load published a unit that was not empty")
    word.store(Self.loaded, ordering: .releasing)
  }

  /// The thread whose claim `stored` is.
  @usableFromInline
  static func owner(of stored: UInt) -> UncountedReference<LoadingThread> {
    UncountedReference(address: stored & ~tags)
  }

  /// The multiton this unit holds, if one was made.
  @inlinable @inline(__always)
  func existingMultiton<F: Feature>(_ feature: F.Type) -> UncountedReference<Multiton<F>>? {
    let stored = word.load(ordering: .acquiring)
    guard stored != 0 else { return nil }
    return UncountedReference(address: stored)
  }

  /// The instance for `context` of the multiton this unit holds, if loaded: no lock, no cast.
  @inlinable @inline(__always)
  func multitonInstance<F: Feature>(_ feature: F.Type, for context: F.Context) -> F? {
    guard let multiton = existingMultiton(feature) else { return nil }
    return multiton.borrow { $0.cached(context) }
  }

  /// The multiton this unit holds, made and published by the first caller.
  func multiton<F: Feature>(_ feature: F.Type) -> Multiton<F> {
    if let existing = existingMultiton(feature) { return existing.object }
    let made = UncountedReference.retaining(Multiton<F>())
    let (published, existing) = word.compareExchange(
      expected: 0, desired: made.address, ordering: .acquiringAndReleasing)
    if published { return made.object }
    made.release()  // another request made one first
    return UncountedReference<Multiton<F>>(address: existing).object
  }

  /// Releases the multiton this unit holds, if any: when its branch goes.
  func releaseMultiton() {
    let stored = word.load(ordering: .acquiring)
    if stored != 0 { UncountedReference<AnyObject>(address: stored).release() }
  }
}

extension UnitState {
  /// Ends the load of `feature` that claimed this unit: publishes the instance (or empties the
  /// unit after a failure, which is not cached), and hands the outcome to the requests waiting for
  /// it, whose ``InFlight`` is in `branch`'s ``LoadTable`` under the key of `feature`.
  @usableFromInline
  func finishLoad(
    of feature: any Feature.Type, loaded: Bool, in branch: Branch,
    outcome: @autoclosure () -> Result<AnyObject, any Error>
  ) {
    let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
    guard loaded else {
      // A failure empties the unit, which another request may claim at once, and be waited for
      // under the same key: the unit is emptied and this load's waiters taken in one critical
      // section, so that they are never confused with the next load's.
      let inFlight = branch.state.withLock { state -> (any LoadInFlight)? in
        guard settle(loaded: false) else { return nil }
        return state.loads.finish(key)
      }
      (inFlight as? InFlight)?.finish(outcome())
      return
    }
    // A loaded unit is never claimed again, so no other load can be waited for under its key.
    guard settle(loaded: true) else { return }
    // A waiter marked the load and tracked it in the table under the lock, in one critical section.
    // Only then is there a lock: a load nobody waited for makes none.
    let inFlight = branch.state.withLock { $0.loads.finish(key) }
    (inFlight as? InFlight)?.finish(outcome())
  }

  /// The load of `feature` in progress in this unit, marked waited and tracked in `state`, the
  /// branch's ``LoadTable``, for its owner to finish when it ends; `nil` when it ended meanwhile.
  /// What a request, or a close, waits for.
  func inFlight(_ feature: any Feature.Type, tracking state: Lock<Branch.State>) -> InFlight? {
    let key = LoadKey(feature: ObjectIdentifier(feature), context: nil)
    return state.withLock { state -> InFlight? in
      switch markWaited() {
      case .ended:
        return nil
      case .alreadyWaited:
        return state.loads.inFlight(of: key) as? InFlight
      case .marked(let owner):
        let inFlight = InFlight(owner: owner.object)
        state.loads.track(key, inFlight)
        return inFlight
      }
    }
  }
}

extension UnitState {
  /// Stops a debug build whose unit word holds what no transition makes: run after each
  /// transition off the inlined path. A release build checks nothing.
  func checkInDebugBuilds() {
    assert(violation(quiescent: false) == nil, "unit word: \(violation(quiescent: false) ?? "")")
  }

  /// What is wrong with this cacheable unit's word, if anything: for ``Branch/invariantViolations(quiescent:)``.
  ///
  /// - Parameter quiescent: Whether no load can be in progress, so the word is empty or loaded.
  package func violation(quiescent: Bool) -> String? {
    let stored = word.load(ordering: .acquiring)
    if stored == 0 || stored == Self.loaded || stored == Self.relocated { return nil }
    if stored & Self.loadingTag == 0 { return "holds \(stored), neither empty, loaded nor a claim" }
    if quiescent { return "is claimed by a load in progress" + (stored & Self.waitedTag != 0 ? ", waited for" : "") }
    return stored & ~Self.tags == 0 ? "is claimed by no thread" : nil
  }

  /// The multiton this unit holds, if one was made, whatever its feature.
  var anyMultiton: AnyObject? {
    let stored = word.load(ordering: .acquiring)
    return stored == 0
      ? nil : UncountedReference<AnyObject>(address: stored).object
  }
}
