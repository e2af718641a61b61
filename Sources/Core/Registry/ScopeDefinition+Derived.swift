import Synchronization

extension ScopeDefinition {
  /// One definition derived below another, in a list that only grows: each node keeps the list as
  /// it was before it, so a reader walking it holds no reference and takes no lock.
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

  /// The definition of the scope keyed `key` derived below this one, if a branch derived it.
  func derivedChild(_ key: UInt) -> ScopeDefinition? {
    Self.find(key, from: derivedHead.load(ordering: .acquiring))
  }

  /// `source`, an ancestor's definition of a scope, derived below this one, made once: every branch
  /// of that scope from a branch of this one shares it, and with it the units of its cache.
  ///
  /// Two threads deriving at once both build it; only the first published is kept and returned.
  func derived(from source: ScopeDefinition) -> ScopeDefinition {
    var made: ScopeDefinition?
    var head = derivedHead.load(ordering: .acquiring)
    while true {
      if let found = Self.find(source.scopeKey, from: head) { return found }
      let definition = made ?? ScopeDefinition(deriving: source, parentTable: table, parentPath: scopePath)
      made = definition
      let rest =
        head == 0 ? nil : Unmanaged<Derived>.fromOpaque(UnsafeRawPointer(bitPattern: head)!).takeUnretainedValue()
      let node = Unmanaged.passRetained(Derived(definition, rest: rest))
      let (published, current) = derivedHead.compareExchange(
        expected: head, desired: UInt(bitPattern: node.toOpaque()), ordering: .acquiringAndReleasing)
      if published { return definition }
      node.release()
      head = current
    }
  }

  /// The definition keyed `key` in the list starting at `head`; nodes are never removed while
  /// the definition that owns the list lives, so none is retained on the way.
  private static func find(_ key: UInt, from head: UInt) -> ScopeDefinition? {
    var address = head
    while address != 0 {
      let node = Unmanaged<Derived>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
      let found = node._withUnsafeGuaranteedRef { node -> ScopeDefinition? in
        if node.key == key { return node.definition }
        address = node.rest.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0
        return nil
      }
      if let found { return found }
    }
    return nil
  }
}
