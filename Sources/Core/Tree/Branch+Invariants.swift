extension Branch: InvariantChecking {
  /// A test hook: who waits in this branch now. A test reads it to know that a request or a close
  /// reached its wait before it asserts that something has not happened yet.
  ///
  /// - `requestsForLoads`: requests waiting for the loads in flight here (for an async load, the
  ///   request that started it too);
  /// - `closesForLoads`: closes waiting for those loads to end;
  /// - `closesForTheClose`: closes waiting for the outcome of the close that started first.
  package var waits: (requestsForLoads: Int, closesForLoads: Int, closesForTheClose: Int) {
    let loads = loadsInFlight().map(\.waits)
    let laterCloses =
      existingState?.withLock { state in
        guard case .closing(_, let waiters) = state.lifecycle.state else { return 0 }
        return waiters.count
      } ?? 0
    return (loads.reduce(0) { $0 + $1.requests }, loads.reduce(0) { $0 + $1.closes }, laterCloses)
  }

  /// Checks what the unsafe code of a branch relies on: its storage's layout and alignment, the
  /// state word of every unit (see ``UnitState``), its overflow blocks and multitons, and, when
  /// quiescent, that no load is claimed or waited for and that the lock of its children is free.
  /// Stress tests call it after their runs.
  ///
  /// Off every request's path: it costs nothing unless called.
  package func invariantViolations(quiescent: Bool) -> [String] {
    var violations: [String] = []
    let layout = definition.layout
    if !storage.isAligned { violations.append("storage is not aligned to 16 bytes") }
    let unitBytes = storage.unitBytes
    if unitBytes != layout.byteCount(ofFirst: unitCount) {
      violations.append(
        "the storage header says \(unitBytes) unit bytes, its \(unitCount) units take \(layout.byteCount(ofFirst: unitCount))"
      )
    }
    if Int(contextOffset) < unitBytes { violations.append("the context at \(contextOffset) overlaps the units") }
    if hasTypedContext, let alignment = misalignedContext(definition.scope) {
      violations.append("the context at \(contextOffset) is not aligned to \(alignment)")
    }
    forEachUnit { index, shape, unit in
      violations += unitViolations(shape, unit, index: index, quiescent: quiescent)
    }
    violations += overflowViolations(layout)
    if quiescent, anchor.borrow({ $0.isChildrenLocked }) {
      violations.append("the lock of its children is held")
    }
    if quiescent, let state = existingState {
      state.withLock { state in
        if !state.loads.isIdle { violations.append("\(state.loads.inFlight.count) loads are in flight") }
      }
    }
    let branch = Diagnostic.render(scope: path.diagnosticSteps, style: .unicode)
    return violations.map { "\(branch): \($0)" }
  }

  /// The alignment the context of `scope` needs, if it is not stored so.
  private func misalignedContext<Scope: FeaturesScope>(_ scope: Scope.Type) -> Int? {
    storage.isContextAligned(Scope.Context.self, at: contextOffset) ? nil : MemoryLayout<Scope.Context>.alignment
  }

  private func unitViolations(
    _ shape: UnitLayout.Unit, _ unit: BranchStorage.Unit, index: Int, quiescent: Bool
  ) -> [String] {
    var violations = unit.alignmentViolations(as: shape, index: index)
    if shape.instance != nil {
      if let violation = unit.state.violation(quiescent: quiescent) { violations.append("unit \(index) \(violation)") }
    } else if let multiton = unit.state.anyMultiton {
      let checked = (multiton as? any InvariantChecking)?.invariantViolations(quiescent: quiescent)
      violations += (checked ?? ["unit \(index) holds no multiton"]).map { "unit \(index)'s multiton: \($0)" }
    }
    return violations
  }

  /// Newest first, each block starts where the next older one ends, the oldest after this
  /// branch's own units.
  private func overflowViolations(_ layout: UnitLayout) -> [String] {
    var blocks: [OverflowBlock] = []
    var block = overflow.newest
    while let current = block {
      blocks.append(current)
      block = current.next
    }
    var expectedFirst = unitCount
    for block in blocks.reversed() {
      if block.firstUnit != expectedFirst {
        return ["an overflow block starts at unit \(block.firstUnit), not \(expectedFirst)"]
      }
      expectedFirst = block.firstUnit + block.unitCount
    }
    return expectedFirst <= layout.count ? [] : ["overflow blocks hold \(expectedFirst) units of \(layout.count)"]
  }
}

extension Branch {
  /// The addresses of two of the three objects a branch is made of, its own and its anchor's (the
  /// third, its handle, keeps one word): a test hook, for the sizes `malloc` gives them, which case
  /// f of the benchmarks counts.
  package var objectAddresses: (branch: UInt, anchor: UInt) {
    (UncountedReference(self).address, anchor.address)
  }
}

/// Something whose internal invariants a white-box test can check.
package protocol InvariantChecking: AnyObject {
  /// Every invariant that does not hold, in words; empty when all hold.
  ///
  /// - Parameter quiescent: Whether no request is in progress, so that nothing may be mid-load.
  func invariantViolations(quiescent: Bool) -> [String]
}
