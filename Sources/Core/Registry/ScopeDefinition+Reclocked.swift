extension ScopeDefinition {
  /// The definitions of a branch's path (`path`, root first) in a copy of their tree whose instances
  /// age on `clock`: what a test's copy of a tree with a clock of its own branches with.
  ///
  /// Each step of the copy is to the copied root what the step was to the original: a nested scope's
  /// definition, one derived below its parent's, or a test container's undefined scope.
  ///
  /// - Parameters:
  ///   - path: The definitions of the branches from the root to the copied branch.
  ///   - clock: What the copy's instances with a time-to-live age on.
  /// - Returns: The copies, root first, one for each of `path`.
  package static func reclocked<C: Clock>(_ path: [ScopeDefinition], clock: C) -> [ScopeDefinition]
  where C.Duration == Duration {
    guard let root = path.first else { return [] }
    var copies: [ObjectIdentifier: ScopeDefinition] = [:]
    var result = [ScopeDefinition(copying: root, renewals: TreeRenewals(clock: clock), copies: &copies)]
    for (parent, definition) in zip(path, path.dropFirst()) {
      let copiedParent = result[result.count - 1]
      if parent.child(definition.scope) === definition, let child = copiedParent.child(definition.scope) {
        result.append(child)
      } else if let source = copies[definition.origin] {
        result.append(copiedParent.derived(from: source))
      } else {
        result.append(copiedParent.undefinedChild(definition.scope))
      }
    }
    return result
  }
}
