import Synchronization

/// The immutable, resolved form of a scope's registry.
///
/// Its table is flattened: it holds this scope's bindings and every ancestor's that none of this
/// scope's replace, each with how many branches up it lives, so resolution never walks registries.
///
/// A scope defined by an ancestor's registry is branched here through a definition derived from
/// that one: the same bindings and nested scopes, flattened over this definition's table. It is
/// made on the first such branch and kept (see ``derived(from:)``).
@usableFromInline
package final class ScopeDefinition: Sendable {
  package let scope: any FeaturesScope.Type
  /// Where `defineScope` was called; `nil` at the root.
  package let location: SourceLocation?
  /// The scopes from the root to this one.
  package let scopePath: [any FeaturesScope.Type]
  package let bindings: [Binding]
  /// What this scope's registry named to run before a started branch serves, in order.
  package let startWork: [StartWork]
  /// What the tree's loads and branches are reported to; `nil` when nobody observes the tree.
  let observer: (any FeaturesObserver)?
  /// Whether ``observer`` is set: one byte for the load path to test.
  @usableFromInline let isObserved: Bool
  /// The tree's clock and refresh turn, which every definition of the tree carries.
  let renewals: TreeRenewals
  /// The values this scope's registry gives properties, by property key.
  package let properties: [UInt: RegistryPropertyValue]
  package let table: FeatureTable
  package let children: [ObjectIdentifier: ScopeDefinition]
  /// `children` as branching reads it: few, so scanned rather than hashed; `children` keeps them.
  private let childList: [(key: UInt, definition: UncountedReference<ScopeDefinition>)]
  /// `table`'s lookup, for new branches to copy without touching the table.
  package let lookup: FeatureTable.Lookup
  /// How a branch of this scope lays out its storage (`table`'s).
  package let layout: UnitLayout
  /// The key (``FeatureTable/key(_:)``) of `scope`.
  package let scopeKey: UInt
  /// The definition a derived one was derived from, ultimately; `nil` for one built from a registry.
  private let derivedOrigin: ObjectIdentifier?
  /// The head of the ``Derived`` list (retained), or 0: definitions derived below this one.
  let derivedHead = AtomicReference<Derived>()

  /// The definition of a registry, with its nested scopes.
  ///
  /// - Parameter reporting: Collects the conflicts of this scope and of its nested ones.
  /// - Parameter observer: The tree's observer, which every definition of the tree carries.
  /// - Parameter renewals: The tree's clock and refresh turn, carried likewise.
  convenience init(
    _ content: ScopeContent, parentTable: FeatureTable?, parentPath: [any FeaturesScope.Type],
    observer: (any FeaturesObserver)?, renewals: TreeRenewals, reporting: inout [Diagnostic]
  ) {
    // One pass builds the table from the registrations as they are, unless a feature is
    // registered twice: then the first registration of each keeps its place, carrying every
    // registration of it, and the table is built from those.
    let bindings: [Binding]
    let table: FeatureTable
    if let built = FeatureTable(content.bindings, over: parentTable) {
      (bindings, table) = (content.bindings, built)
    } else {
      bindings = Self.resolvingConflicts(content.bindings)
      table = FeatureTable(bindings, over: parentTable)!  // the features now differ
    }
    self.init(
      scope: content.scope, location: content.location, bindings: bindings, startWork: content.startWork,
      properties: PropertySetting.values(content.properties, in: parentPath + [content.scope]), table: table,
      parentPath: parentPath, origin: nil, observer: observer, renewals: renewals
    ) { table, scopePath in
      content.scopes.map {
        ScopeDefinition(
          $0, parentTable: table, parentPath: scopePath, observer: observer, renewals: renewals,
          reporting: &reporting)
      }
    }
    for binding in bindings where !binding.conflicts.isEmpty {
      reporting.append(FeatureRegistrationConflict.diagnostic(binding, scopePath: scopePath))
    }
  }

  /// `source` as a branch of this scope sees it: its bindings and nested scopes, flattened over
  /// `parentTable`.
  ///
  /// Its conflicts are not collected: they were reported when `source`'s root was built, and
  /// requests still fail on them.
  convenience init(deriving source: ScopeDefinition, parentTable: FeatureTable, parentPath: [any FeaturesScope.Type]) {
    self.init(
      scope: source.scope, location: source.location, bindings: source.bindings, startWork: source.startWork,
      properties: source.properties,
      table: FeatureTable(source.bindings, over: parentTable)!,  // a definition's bindings register distinct features
      parentPath: parentPath, origin: source.origin, observer: source.observer, renewals: source.renewals
    ) { table, scopePath in
      source.children.values.map { ScopeDefinition(deriving: $0, parentTable: table, parentPath: scopePath) }
    }
  }

  /// `source` and its nested scopes as they are, told to no observer: the tree validation branches,
  /// so that the tree's observer sees nothing of validation.
  convenience init(unobserved source: ScopeDefinition) {
    self.init(
      scope: source.scope, location: source.location, bindings: source.bindings, startWork: source.startWork,
      properties: source.properties,
      table: source.table, parentPath: Array(source.scopePath.dropLast()), origin: nil, observer: nil,
      renewals: source.renewals
    ) { _, _ in source.children.values.map { ScopeDefinition(unobserved: $0) } }
  }

  /// `source` and its nested scopes as they are, with the same observer, aging instances on
  /// `renewals`' clock: the definitions of a copy of a tree that a test gives a clock of its own.
  ///
  /// - Parameter copies: Collects each copy by the identifier of the definition it copies.
  convenience init(
    copying source: ScopeDefinition, renewals: TreeRenewals, copies: inout [ObjectIdentifier: ScopeDefinition]
  ) {
    self.init(
      scope: source.scope, location: source.location, bindings: source.bindings, startWork: source.startWork,
      properties: source.properties,
      table: source.table, parentPath: Array(source.scopePath.dropLast()), origin: nil, observer: source.observer,
      renewals: renewals
    ) { _, _ in source.children.values.map { ScopeDefinition(copying: $0, renewals: renewals, copies: &copies) } }
    copies[ObjectIdentifier(source)] = self
  }

  private init(
    scope: any FeaturesScope.Type, location: SourceLocation?, bindings: [Binding], startWork: [StartWork],
    properties: [UInt: RegistryPropertyValue],
    table: FeatureTable, parentPath: [any FeaturesScope.Type], origin: ObjectIdentifier?,
    observer: (any FeaturesObserver)?, renewals: TreeRenewals,
    children makeChildren: (FeatureTable, [any FeaturesScope.Type]) -> [ScopeDefinition]
  ) {
    self.scope = scope
    self.location = location
    self.observer = observer
    isObserved = observer != nil
    self.renewals = renewals
    let scopePath = parentPath + [scope]
    self.scopePath = scopePath
    self.bindings = bindings
    self.startWork = startWork
    self.properties = properties
    self.table = table
    var children: [ObjectIdentifier: ScopeDefinition] = [:]
    for child in makeChildren(table, scopePath) { children[ObjectIdentifier(child.scope)] = child }
    self.children = children
    childList = children.values.map { (FeatureTable.key($0.scope), UncountedReference($0)) }
    lookup = table.lookup
    layout = table.units
    scopeKey = FeatureTable.key(scope)
    derivedOrigin = origin
  }

  deinit {
    derivedHead.releaseStored()
  }

  /// The first registration of each feature in `registered`, in order, each carrying every
  /// registration of its feature when there is more than one.
  private static func resolvingConflicts(_ registered: [Binding]) -> [Binding] {
    var firstIndex: [ObjectIdentifier: Int] = [:]
    var firsts: [Binding] = []
    var conflicting: [Int: [(registration: Registration, site: SourceLocation)]] = [:]
    for binding in registered {
      let id = binding.registration.featureID
      if let first = firstIndex[id] {
        conflicting[first, default: [(firsts[first].registration, firsts[first].site)]].append(
          (binding.registration, binding.site))
      } else {
        firstIndex[id] = firsts.count
        firsts.append(binding)
      }
    }
    for (index, conflicts) in conflicting {
      let first = firsts[index]
      firsts[index] = Binding(
        registration: first.registration, site: first.site, scope: first.scope, conflicts: conflicts,
        lifecycle: first.lifecycle)
    }
    return firsts
  }

  /// The registry definition this one was built from: itself, or the one it was derived from.
  package var origin: ObjectIdentifier { derivedOrigin ?? ObjectIdentifier(self) }

  /// The definition of `scope` right below this one, if this scope defines it.
  func child(_ scope: any FeaturesScope.Type) -> ScopeDefinition? {
    let key = FeatureTable.key(scope)
    for child in childList where child.key == key { return child.definition.object }
    return nil
  }
}
