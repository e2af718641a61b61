extension Multiton: InvariantChecking {
  /// The table holds every entry, each found by probing from its hash; it is at most half full.
  package func invariantViolations(quiescent: Bool) -> [String] {
    lock.withLock { state in
      var violations: [String] = []
      let current = state.tables[state.tables.count - 1]
      if table.load() != UncountedReference(current) {
        violations.append("the published table is not the newest")
      }
      let capacity = current.mask + 1
      if capacity & current.mask != 0 { violations.append("capacity \(capacity) is not a power of two") }
      if state.entries.count * 2 > capacity {
        violations.append("\(state.entries.count) entries in \(capacity) buckets")
      }
      for entry in state.entries where cached(entry.context) == nil {
        violations.append("an entry is not found from its hash")
      }
      return violations
    }
  }
}
