import Synchronization

extension Branch {
  /// This branch's properties, made on first use (with its ancestors', up to the root's, whose
  /// ``PropertyTree`` they share).
  var properties: BranchProperties {
    propertiesReference.storeIfNone {
      BranchProperties(tree: parent?.properties.tree ?? PropertyTree(), anchor: anchor.object)
    }
  }

  /// This branch's properties, if anything used them yet.
  var existingProperties: BranchProperties? {
    propertiesReference.load()?.object
  }

  /// The value of `property` in `branch` if its snapshot holds it, current.
  ///
  /// Static, on an uncounted branch reference, like ``peek(_:in:)``: inlined whole into the caller, with
  /// nothing for the optimiser to retain.
  @inlinable @inline(__always)
  static func peekProperty<P: FeaturesProperty>(_ property: P.Type, in branch: UncountedReference<Branch>) -> P.Value? {
    // A closed branch reads the slow way, which reports `FeaturesClosed`: the same byte a cached
    // request tests.
    let (slowPathFlags, properties) = branch.borrow {
      ($0.slowPathFlags.load(ordering: .relaxed), $0.propertiesReference.load())
    }
    guard let properties, slowPathFlags & closedBit == 0 else { return nil }
    return properties.borrow { $0.cached(property) }
  }

  /// The box of the value the property keyed `key` has on this branch; `nil` for its default.
  ///
  /// A value set on this branch, else on the nearest ancestor that sets one, else the nearest
  /// registry value on the path. The caller keeps this branch and its ancestors alive.
  ///
  /// - Parameter own: The values set on this branch, when the caller holds its lock.
  func propertySource(_ key: UInt, own: [UInt: AnyPropertyBox]? = nil) -> AnyPropertyBox? {
    // With `own` given, the caller holds this branch's lock: it must not be taken again.
    if let box = own != nil ? own?[key] : existingProperties?.ownValue(key) { return box }
    var next = parent
    while let branch = next {
      if let box = branch.existingProperties?.ownValue(key) { return box }
      next = branch.parent
    }
    next = self
    let tree = existingProperties?.tree
    while let branch = next {
      if let box = branch.definition.properties[key]?.box(readBy: tree) { return box }
      next = branch.parent
    }
    return nil
  }

  /// Every value the property keyed `key` has on the path, in the order lookup considers them: sets,
  /// this branch's first, then registry values, the nearest first. The first is the one in effect.
  func propertySources(_ key: UInt) -> [AnyPropertyBox] {
    var sets: [AnyPropertyBox] = []
    var registries: [AnyPropertyBox] = []
    var next: Branch? = self
    while let branch = next {
      if let box = branch.existingProperties?.ownValue(key) { sets.append(box) }
      if let box = branch.definition.properties[key]?.box(readBy: nil) { registries.append(box) }
      next = branch.parent
    }
    return sets + registries
  }

  /// Gives this branch, a test copy of `original`, the values set on `original`.
  package func copyProperties(from original: Branch) {
    guard let values = original.existingProperties?.ownValues, !values.isEmpty else { return }
    properties.ownValues = values
  }
}
