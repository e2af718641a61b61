extension Features {
  /// Whether a branch of `scope` can be made from this branch: `scope` is defined in the registry of
  /// this branch's scope or of one of its ancestors'.
  ///
  /// A server integration asks it once, when it is set up, of a branch it will make requests'
  /// branches from, so that a wiring that cannot serve is reported at start-up rather than on
  /// each request. `false` for the features of a released or closed branch.
  ///
  /// ```swift
  /// if !sessions.parent.canBranch(RequestScope.self) { … }
  /// ```
  ///
  /// - Parameter scope: The scope to branch.
  /// - Returns: Whether `branch(scope, context:)` from here would find the scope's definition.
  @_spi(Integrations)
  public func canBranch<Scope: FeaturesScope>(_ scope: Scope.Type) -> Bool {
    let location = SourceLocation(fileID: #fileID, line: #line)
    return
      (try? withBranch(at: location) { branch in
        _ = try branch.definition.childDefinition(scope, below: branch, at: location)
      }) != nil
  }
}

extension Features {
  /// The name of this branch's scope, as diagnostics write it: `Root`, `SessionScope`; `released`
  /// for the features of a released branch.
  ///
  /// ```swift
  /// "cannot branch RequestScope from \(sessions.parent.scopeName)"
  /// ```
  @_spi(Integrations)
  public var scopeName: String {
    let location = SourceLocation(fileID: #fileID, line: #line)
    return (try? withBranch(at: location) { $0.definition.scope.name }) ?? "released"
  }
}

extension Features {
  /// The root branch of the tree these features are in, as an object to compare with `===` or to
  /// keep weakly: the same for every branch of one tree; `nil` for the features of a released branch.
  ///
  /// A server integration notes what it finds as it is set up against the tree it serves, and the
  /// service that validates that tree at start-up finds the note by it.
  ///
  /// ```swift
  /// if let tree = root.tree, tree === sessions.parent.tree { … }
  /// ```
  @_spi(Integrations)
  public var tree: (any AnyObject & Sendable)? {
    let location = SourceLocation(fileID: #fileID, line: #line)
    return try? withBranch(at: location) { branch -> any AnyObject & Sendable in
      var root = branch
      while let parent = root.parent { root = parent }
      return root
    }
  }
}
