/// Every unit a branch has room for: those in its own storage, in give-out order, then those in
/// its overflow blocks. A view the branch makes when it needs one (``Branch/units``), for what
/// finds, gives out, destroys and checks units off the inlined read, and for a close to find the
/// loads that still claim a unit (``trackClaimedLoads(in:)``).
struct BranchUnits {
  /// The branch's own storage.
  let storage: BranchStorage
  /// The units its scope gives out, in give-out order.
  let layout: UnitLayout
  /// How many units `storage` has room for.
  let storedCount: Int
  /// The blocks of the units given out after the branch was made.
  let overflow: OverflowChain

  /// The unit of `word` (an entry's ``FeatureTable/Entry/unitWord``): in the storage or an overflow
  /// block.
  ///
  /// - Parameter giveOut: Whether to give the unit out and make room for it when needed, as a
  ///   load does; otherwise `nil` when the branch has none, since nothing was loaded in it.
  func unit(word: SharedWord, giveOut: Bool) -> BranchStorage.Unit? {
    var stored = word.load(ordering: .acquiring)
    if stored == 0 {
      guard giveOut else { return nil }
      stored = layout.giveOut(layout.words.index(of: word))
    }
    let offset = Int(stored - 1)
    if let unit = storage.unitIfStored(at: offset) { return unit }
    return overflow.unit(at: offset, giveOut: giveOut, layout: layout, firstUnit: storedCount)
  }

  /// The instance of `entry`'s feature loaded in the branch, wherever its unit is.
  func cached<F: Feature>(_ feature: F.Type, entry: FeatureTable.Entry) -> F? {
    unit(word: entry.unitWord!, giveOut: false)?.instance(feature, at: entry.instanceOffset)
  }

  /// The multiton of `word`'s unit, made on first use.
  func multiton<F: Feature>(_ feature: F.Type, word: SharedWord) -> Multiton<F> {
    unit(word: word, giveOut: true)!.state.multiton(feature)
  }

  /// Stores an instance loaded outside the unit's own claim: by an async load, which claimed the
  /// feature in the branch's ``LoadTable``, so nothing else writes this unit.
  func publish<F: Sendable>(_ box: Box<F>, entry: FeatureTable.Entry) {
    let unit = unit(word: entry.unitWord!, giveOut: true)!
    unit.store(box.value, at: entry.instanceOffset)
    unit.state.publishLoaded()
  }

  /// Calls `body` with every unit there is room for, in the storage and the overflow blocks: its
  /// index in give-out order, its shape, and the unit.
  func forEach(_ body: (Int, UnitLayout.Unit, BranchStorage.Unit) -> Void) {
    for index in 0..<storedCount {
      let shape = layout.unit(at: index)
      body(index, shape, storage.unit(at: shape.offset))
    }
    var block = overflow.newest
    while let current = block {
      for index in current.firstUnit..<(current.firstUnit + current.unitCount) {
        let shape = layout.unit(at: index)
        body(index, shape, current.unit(at: shape.offset)!)
      }
      block = current.next
    }
  }

  /// Has the branch's ``LoadTable`` (in `state`, made only if a unit is claimed) track every load
  /// that claimed a unit and that nobody waits for yet, so that a close finds it and waits for it.
  func trackClaimedLoads(in state: @autoclosure () -> Lock<Branch.State>) {
    forEach { _, shape, unit in
      guard let instance = shape.instance, unit.state.isClaimed else { return }
      _ = unit.state.inFlight(instance.feature, tracking: state())
    }
  }

  /// Frees what every unit holds, and the overflow blocks: as the branch goes, when no load can be
  /// in progress (a load keeps its branch alive).
  func destroy() {
    storage.destroyUnits(of: layout, from: 0, count: storedCount)
    overflow.destroy(layout)
  }

  // MARK: Invariants

  /// What is wrong with the units: the storage's layout and alignment, the state word of every
  /// unit (see ``UnitState``), the overflow blocks and the multitons.
  ///
  /// - Parameter quiescent: Whether no request is in progress, so that no unit may be mid-load.
  func violations(quiescent: Bool) -> [String] {
    var violations: [String] = []
    if !storage.isAligned { violations.append("storage is not aligned to 16 bytes") }
    let unitBytes = storage.unitBytes
    let expectedBytes = layout.byteCount(ofFirst: storedCount)
    if unitBytes != expectedBytes {
      violations.append(
        "the storage header says \(unitBytes) unit bytes, its \(storedCount) units take \(expectedBytes)")
    }
    forEach { index, shape, unit in
      violations += unit.alignmentViolations(as: shape, index: index)
      if shape.instance != nil {
        if let violation = unit.state.violation(quiescent: quiescent) {
          violations.append("unit \(index) \(violation)")
        }
      } else if let multiton = unit.state.anyMultiton {
        let checked = (multiton as? any InvariantChecking)?.invariantViolations(quiescent: quiescent)
        violations += (checked ?? ["unit \(index) holds no multiton"]).map { "unit \(index)'s multiton: \($0)" }
      }
    }
    return violations + overflowViolations()
  }

  /// Newest first, each block starts where the next older one ends, the oldest after the storage's
  /// own units.
  private func overflowViolations() -> [String] {
    var blocks: [OverflowBlock] = []
    var block = overflow.newest
    while let current = block {
      blocks.append(current)
      block = current.next
    }
    var expectedFirst = storedCount
    for block in blocks.reversed() {
      if block.firstUnit != expectedFirst {
        return ["an overflow block starts at unit \(block.firstUnit), not \(expectedFirst)"]
      }
      expectedFirst = block.firstUnit + block.unitCount
    }
    return expectedFirst <= layout.count ? [] : ["overflow blocks hold \(expectedFirst) units of \(layout.count)"]
  }
}

/// Something whose internal invariants a white-box test can check.
package protocol InvariantChecking: AnyObject {
  /// Every invariant that does not hold, in words; empty when all hold.
  ///
  /// - Parameter quiescent: Whether no request is in progress, so that nothing may be mid-load.
  func invariantViolations(quiescent: Bool) -> [String]
}
