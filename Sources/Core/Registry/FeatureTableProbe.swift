/// A test hook: a ``FeatureTable`` whose entries have chosen keys, to drive collisions,
/// wrap-around and the load factor. Each entry serves a static value, its own key.
package final class FeatureTableProbe {
  private let table: FeatureTable
  /// What the entries point at, unretained: a scope definition keeps them for a real table.
  private let bindings: [Binding]

  /// A table of `keys`: none 0 (an empty bucket's key), none twice.
  package init(keys: [UInt]) {
    precondition(!keys.contains(0) && Set(keys).count == keys.count, "keys are not 0 and differ")
    bindings = keys.map { key in
      let registration = Registration(
        feature: ProbeKey.self, lifetime: .static, payload: Box(ProbeKey(key: key)), isAsync: false,
        implementation: .value(of: ProbeKey.self), location: SourceLocation())
      return Binding(
        registration: registration, site: registration.location, scope: RootFeaturesScope.self, conflicts: [])
    }
    table = FeatureTable(bindings, keys: keys, over: nil)!  // the keys differ
  }

  /// How many buckets the table has.
  package var bucketCount: Int { 1 << (UInt.bitWidth - Int(table.lookup.shift)) }

  /// The bucket a lookup of `key` starts probing at.
  package func homeBucket(of key: UInt) -> Int {
    FeatureTable.Lookup.homeBucket(of: key, shift: table.lookup.shift)
  }

  /// The value the table serves for `key`, if it has the key.
  package func probe(_ key: UInt) -> UInt? {
    guard let entry = table.lookup.entry(for: key) else { return nil }
    return entry.payload.known(as: Box<ProbeKey>.self).object.value.key
  }

  /// What the entries serve.
  private struct ProbeKey: StaticFeature {
    let key: UInt
    static var placeholder: ProbeKey { ProbeKey(key: 0) }
  }
}
