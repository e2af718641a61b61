/// One registration as a scope sees it: the implementation, where and in which scope it was
/// registered, and its cache slot in the branches of that scope.
package final class Binding: Sendable {
  package let registration: Registration
  /// Where `registry.use(...)` was called.
  package let site: SourceLocation
  /// The scope whose registry holds it.
  package let scope: any FeaturesScope.Type
  /// The index of its cache slot in a branch of `scope` (cacheables without a context), or -1.
  package let slot: Int
  /// Every registration of the feature in that scope when there is more than one.
  package let conflicts: [(registration: Registration, site: SourceLocation)]

  init(
    registration: Registration, site: SourceLocation, scope: any FeaturesScope.Type, slot: Int,
    conflicts: [(registration: Registration, site: SourceLocation)]
  ) {
    self.registration = registration
    self.site = site
    self.scope = scope
    self.slot = slot
    self.conflicts = conflicts
  }
}

/// The immutable, resolved form of a scope's registry.
///
/// Its table is flattened: it holds this scope's bindings and every ancestor's that none of this
/// scope's replace, each with how many branches up it lives, so resolution never walks registries.
package final class ScopeDefinition: Sendable {
  package let scope: any FeaturesScope.Type
  /// Where `defineScope` was called; `nil` at the root.
  package let location: SourceLocation?
  /// The scopes from the root to this one.
  package let scopePath: [any FeaturesScope.Type]
  package let bindings: [Binding]
  package let table: FeatureTable
  /// How many cache slots a branch of this scope has.
  package let slotCount: Int
  package let children: [ObjectIdentifier: ScopeDefinition]
  /// `children` as branching reads it: few, so scanned rather than hashed; `children` keeps them.
  private let childList: [(key: UInt, definition: Unmanaged<ScopeDefinition>)]
  /// `table`'s lookup, for new branches to copy without touching the table.
  package let lookup: FeatureTable.Lookup
  /// How a branch of this scope lays out its storage (`table`'s).
  package let layout: FeatureTable.BranchLayout
  /// The key (``FeatureTable/key(_:)``) of `scope`.
  package let scopeKey: UInt

  init(
    _ content: ScopeContent, parentTable: FeatureTable?, parentPath: [any FeaturesScope.Type],
    reporting: inout [Diagnostic]
  ) {
    scope = content.scope
    location = content.location
    scopePath = parentPath + [content.scope]

    var grouped: [ObjectIdentifier: [(registration: Registration, site: SourceLocation)]] = [:]
    var order: [ObjectIdentifier] = []
    for entry in content.registrations {
      if grouped[entry.registration.featureID] == nil { order.append(entry.registration.featureID) }
      grouped[entry.registration.featureID, default: []].append(entry)
    }
    var slots = 0
    var bindings: [Binding] = []
    for id in order {
      let entries = grouped[id]!
      let first = entries[0]
      let isSlotted = entries.count == 1 && first.registration.kind == .cacheable && !first.registration.isContextual
      bindings.append(
        Binding(
          registration: first.registration, site: first.site, scope: content.scope, slot: isSlotted ? slots : -1,
          conflicts: entries.count > 1 ? entries : []))
      if isSlotted { slots += 1 }
    }
    self.bindings = bindings
    slotCount = slots

    var entries: [FeatureTable.Entry] =
      parentTable?.entries.map { entry in
        var entry = entry
        entry.depth += 1
        return entry
      } ?? []
    for binding in bindings {
      let entry = FeatureTable.Entry(binding)
      if let index = entries.firstIndex(where: { $0.key == entry.key }) {
        entries[index] = entry
      } else {
        entries.append(entry)
      }
    }
    table = FeatureTable(entries)

    var children: [ObjectIdentifier: ScopeDefinition] = [:]
    let scopePath = self.scopePath
    for child in content.scopes {
      children[ObjectIdentifier(child.scope)] = ScopeDefinition(
        child, parentTable: table, parentPath: scopePath, reporting: &reporting)
    }
    self.children = children
    childList = children.values.map { (FeatureTable.key($0.scope), Unmanaged.passUnretained($0)) }
    lookup = table.lookup
    layout = table.layout
    scopeKey = FeatureTable.key(scope)
    for binding in bindings where !binding.conflicts.isEmpty {
      reporting.append(FeatureRegistrationConflict.diagnostic(binding, scopePath: scopePath))
    }
  }

  /// The definition of `scope` right below this one, if this scope defines it.
  func child(_ scope: any FeaturesScope.Type) -> ScopeDefinition? {
    let key = FeatureTable.key(scope)
    for child in childList where child.key == key { return child.definition.takeUnretainedValue() }
    return nil
  }
}
