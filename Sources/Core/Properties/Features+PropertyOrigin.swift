extension Features {
  /// Where the value of a property on this branch comes from: set on which branch, given by which
  /// registry, or the default; and what it hides.
  ///
  /// It answers "why is the timeout 30 seconds here?" without changing anything. The value in effect
  /// is the first that lookup finds (a set on this branch, then on its ancestors, nearest first, then
  /// registry values, nearest first, then the default); ``PropertyOrigin/hidden`` lists the others on
  /// the path, in the same order.
  ///
  /// `print` shows it as a tree:
  ///
  /// ```swift
  /// print(session.which(RequestTimeout.self))
  /// // RequestTimeout is 1.0 seconds
  /// // ├─ scope: Root › SessionScope(Session(user: "ann"))
  /// // ├─ from: set on Root, an ancestor, at App/Main.swift:42
  /// // └─ hides: 5.0 seconds, registry.set at App/Main.swift:12 in defineScope(SessionScope.self)
  /// //           30.0 seconds, its defaultValue
  /// ```
  ///
  /// - Parameters:
  ///   - property: The property to look up.
  ///   - file: Where it is asked; captured for you, and shown when the branch was released.
  ///   - line: Where it is asked; captured for you.
  /// - Returns: Where the value comes from, or the diagnostic of why the branch cannot say.
  public func which<P: FeaturesProperty>(
    _ property: P.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> PropertyOrigin {
    let location = SourceLocation(fileID: file, line: line)
    let name = String(describing: property)
    do {
      return try withOpenBranch(.using("the value of \(property)"), at: location) { branch in
        let key = FeatureTable.key(property)
        let boxes = BranchProperties.sources(of: key, in: branch) + [PropertyBox(P.defaultValue, source: .default)]
        let sources = boxes.map { PropertyOrigin.Source($0, in: branch) }
        return PropertyOrigin(
          property: name, scope: branch.path.diagnosticSteps, value: sources[0], hidden: Array(sources.dropFirst()),
          diagnostic: nil)
      }
    } catch {
      return PropertyOrigin(
        property: name, scope: [], value: nil, hidden: [], diagnostic: Diagnostic(describing: error))
    }
  }

  /// Where the value of a property on one branch comes from: the answer of
  /// `features.which(Property.self)`.
  ///
  /// ``value`` is set unless the branch could not be reached, in which case ``diagnostic`` says why.
  /// `print` shows the tree of ``renderedTree(style:)``, ``summary(style:)`` is one line and
  /// ``json(pretty:)`` is JSON.
  ///
  /// ```swift
  /// let origin = session.which(RequestTimeout.self)
  /// if origin.value?.kind == .default { print("nothing sets RequestTimeout here") }
  /// ```
  public struct PropertyOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The property's name: `RequestTimeout`.
    public let property: String
    /// The branch that was asked, root first, each step with its context; empty when its features
    /// were released.
    public let scope: [Diagnostic.ScopeStep]
    /// The value in effect and where it comes from; `nil` when the branch was released.
    public let value: Source?
    /// The other values on the path, which the one in effect hides, in lookup order; the default
    /// last (unless it is the value in effect).
    public let hidden: [Source]
    /// Why the branch could not be asked (``FeaturesReleased``), or `nil`.
    public let diagnostic: Diagnostic?

    /// Where a value comes from.
    public enum Kind: Sendable, Hashable {
      /// Set on a branch: `features[Property.self] = value`.
      case set
      /// Given by a scope's registry: `registry.set(Property.self, to: value)`.
      case registry
      /// Nothing on the path sets it: the property's `defaultValue`.
      case `default`
    }

    /// One value of the property, and where it comes from.
    public struct Source: Sendable, Hashable {
      /// The value, as `String(describing:)` renders it.
      public let value: String
      /// Where it comes from.
      public let kind: Kind
      /// Where it was set: the subscript's or `registry.set`'s site; `nil` for the default.
      public let location: SourceLocation?
      /// The branch it was set on (``Kind/set``), root first; `nil` otherwise.
      public let branch: [Diagnostic.ScopeStep]?
      /// Whether it was set on the branch that was asked (``Kind/set``).
      public let isThisBranch: Bool
      /// The registry that gives it (``Kind/registry``): `FeaturesRoot`,
      /// `defineScope(SessionScope.self)`; `nil` otherwise.
      public let registry: String?

      init(_ box: AnyPropertyBox, in asked: Branch) {
        value = box.valueDescription
        switch box.source {
        case .set(let path, let site):
          kind = .set
          location = site
          branch = path.diagnosticSteps
          isThisBranch = path === asked.path
          registry = nil
        case .registry(let scopes, let site):
          kind = .registry
          location = site
          branch = nil
          isThisBranch = false
          registry = registryName(scopes[scopes.count - 1])
        case .default:
          kind = .default
          location = nil
          branch = nil
          isThisBranch = false
          registry = nil
        }
      }

      /// `set on this branch at App/Main.swift:42`, and so on.
      func origin(style: Diagnostic.Style) -> String {
        switch kind {
        case .set:
          guard !isThisBranch, let branch else { return "set on this branch at \(location!)" }
          return "set on \(Diagnostic.render(scope: branch, style: style)), an ancestor, at \(location!)"
        case .registry: return "registry.set at \(location!) in \(registry!)"
        case .default: return "its defaultValue"
        }
      }
    }

    /// The tree `print` shows.
    ///
    /// ```
    /// RequestTimeout is 30.0 seconds
    /// ├─ scope: Root › SessionScope(Session(user: "ann"))
    /// ├─ from: its defaultValue: nothing on this branch's path sets it
    /// └─ to change it: registry.set(RequestTimeout.self, to: ...) in a registry on the path,
    ///                  or features[RequestTimeout.self] = ... on this branch or an ancestor
    /// ```
    ///
    /// When the branch could not be asked, the diagnostic hangs below as `because`.
    ///
    /// - Parameter style: Unicode box drawing (the default) or ASCII.
    /// - Returns: The rendered tree, lines separated by `\n`, without a final newline.
    public func renderedTree(style: Diagnostic.Style = .unicode) -> String {
      renderTree(style: style)
    }

    /// The tree of ``renderedTree(style:)`` with Unicode box drawing.
    public var description: String { renderedTree() }

    /// One line: the value and where it comes from; or, when the branch could not be asked, the
    /// diagnostic's ``Diagnostic/summary(style:)``.
    ///
    /// ```
    /// RequestTimeout is 1.0 seconds, set on this branch at App/Main.swift:42
    /// ```
    ///
    /// - Parameter style: Unicode (the default) or ASCII separators.
    /// - Returns: The summary line.
    public func summary(style: Diagnostic.Style = .unicode) -> String {
      guard let value else {
        return "\(property) cannot be read here" + (diagnostic.map { ": " + $0.summary(style: style) } ?? "")
      }
      return "\(property) is \(value.value), \(value.origin(style: style))"
    }

    /// The answer as a JSON object with stable keys, for tools, written as ``Diagnostic/json(pretty:)``
    /// writes a diagnostic.
    ///
    /// Keys always appear in this order, absent facts as `null`: `property`, `scope`
    /// (`[{"name", "context"}]`), `value` and each of `hidden` (`{"value", "kind", "location",
    /// "branch", "isThisBranch", "registry"}`, `kind` being `set`, `registry` or `default`), and
    /// `diagnostic` (a diagnostic, with the schema of ``Diagnostic/json(pretty:)``).
    ///
    /// ```swift
    /// let json = session.which(RequestTimeout.self).json()
    /// ```
    ///
    /// - Parameter pretty: Indent with two spaces, one member a line (`false` gives one line).
    /// - Returns: The JSON text.
    public func json(pretty: Bool = true) -> String {
      renderJSON(pretty: pretty)
    }

    /// The answer as the root of a text tree.
    package func treeNode(style: Diagnostic.Style) -> TreeNode {
      var facts: [(label: String, value: String)] = []
      if !scope.isEmpty { facts.append(("scope", Diagnostic.render(scope: scope, style: style))) }
      guard let value else {
        let children = diagnostic.map { [(label: "because", node: $0.treeNode(style: style))] } ?? []
        return TreeNode(headline: "\(property) cannot be read here", facts: facts, children: children)
      }
      if value.kind == .default {
        facts.append(("from", "its defaultValue: nothing on this branch's path sets it"))
        facts.append(
          (
            "to change it",
            "registry.set(\(property).self, to: ...) in a registry on the path,"
              + "\nor features[\(property).self] = ... on this branch or an ancestor"
          ))
      } else {
        facts.append(("from", value.origin(style: style)))
        facts.append(("hides", hidden.map { "\($0.value), \($0.origin(style: style))" }.joined(separator: "\n")))
      }
      return TreeNode(headline: "\(property) is \(value.value)", facts: facts)
    }
  }
}
