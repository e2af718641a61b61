/// Values in the order they were added, each found and removed by its key in constant time: a
/// branch's teardowns and load records, which renewals take out one by one and closes take whole.
struct OrderedTable<Key: Hashable, Value> {
  /// The values in the order they were added; `nil` where one was removed since the last compaction.
  private var entries: [(key: Key, value: Value)?] = []
  /// Where each key's value is in `entries`.
  private var positions: [Key: Int] = [:]

  /// Whether the table holds no value.
  var isEmpty: Bool { positions.isEmpty }

  /// The values, in the order they were added.
  var values: [Value] { entries.compactMap { $0?.value } }

  /// The value of `key`, if the table holds one.
  subscript(key: Key) -> Value? { positions[key].flatMap { entries[$0]?.value } }

  /// Adds `value` last, under `key`; a value the key had is removed.
  mutating func append(_ value: Value, for key: Key) {
    if let old = positions[key] { entries[old] = nil }
    positions[key] = entries.count
    entries.append((key, value))
  }

  /// Removes the value of `key`, if there is one, and returns it.
  @discardableResult
  mutating func remove(_ key: Key) -> Value? {
    guard let position = positions.removeValue(forKey: key) else { return nil }
    let value = entries[position]?.value
    entries[position] = nil
    // Compacted once most entries are holes: each removal costs a constant, amortised.
    if entries.count > 32, positions.count * 2 < entries.count {
      entries = entries.filter { $0 != nil }
      for (position, entry) in entries.enumerated() { positions[entry!.key] = position }
    }
    return value
  }

  /// Removes every value, and returns them in the order they were added.
  mutating func removeAll() -> [Value] {
    defer { (entries, positions) = ([], [:]) }
    return values
  }
}
