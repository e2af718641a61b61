import Synchronization

extension ScopeDefinition {
  /// One definition derived below another, in a list that only grows: each node keeps the list as
  /// it was before it, so a reader walks it without a lock.
  final class Derived: Sendable {
    let key: UInt
    let definition: ScopeDefinition
    let rest: Derived?

    init(_ definition: ScopeDefinition, rest: Derived?) {
      key = definition.scopeKey
      self.definition = definition
      self.rest = rest
    }
  }

  /// The definition of a branch of `scope` below `branch`, whose definition this is: the one this
  /// scope defines, else the nearest ancestor's, derived below this one.
  ///
  /// A definition determines its ancestors' (it is derived below one definition only), so what
  /// the walk finds is derived once per definition and kept here.
  ///
  /// - Throws: ``FeaturesScopeUndefined`` when no scope on `branch`'s path defines `scope`, unless
  ///   the branch is a test container's, where any scope may be branched, resolving to
  ///   placeholders.
  func childDefinition(_ scope: any FeaturesScope.Type, below branch: Branch, at location: SourceLocation) throws
    -> ScopeDefinition
  {
    if let defined = child(scope) { return defined }
    if let derived = derivedChild(FeatureTable.key(scope)) { return derived }
    var ancestor = branch.parent
    while let current = ancestor {
      if let defined = current.definition.child(scope) { return derived(from: defined) }
      ancestor = current.parent
    }
    if branch.overrides?.resolvesPlaceholders == true { return undefinedChild(scope) }
    throw FeaturesScopeUndefined(branching: scope, from: branch, at: location)
  }

  /// The definition of the scope keyed `key` derived below this one, if a branch derived it.
  func derivedChild(_ key: UInt) -> ScopeDefinition? {
    Self.find(key, from: derivedHead.load()?.object)
  }

  /// `source`, an ancestor's definition of a scope, derived below this one, made once: every branch
  /// of that scope from a branch of this one shares it, and with it the units of its cache.
  ///
  /// Two threads deriving at once both build it; only the first published is kept and returned.
  func derived(from source: ScopeDefinition) -> ScopeDefinition {
    var made: ScopeDefinition?
    while true {
      let head = derivedHead.load()
      if let found = Self.find(source.scopeKey, from: head?.object) { return found }
      let definition = made ?? ScopeDefinition(deriving: source, parentTable: table, parentPath: scopePath)
      made = definition
      let node = UncountedReference.retaining(Derived(definition, rest: head?.object))
      if derivedHead.replace(head, with: node) {
        head?.release()  // the new node keeps it
        return definition
      }
      node.release()
    }
  }

  /// The definition keyed `key` in the list starting at `head`; nodes are never removed while
  /// the definition that owns the list lives, so none is retained on the way.
  private static func find(_ key: UInt, from head: Derived?) -> ScopeDefinition? {
    var node = head
    while let current = node {
      if current.key == key { return current.definition }
      node = current.rest
    }
    return nil
  }
}
