extension FeaturesGraph {
  /// The graph as a Mermaid flowchart: scopes are nested subgraphs; a static feature is a
  /// rectangle, a cacheable a stadium, a cacheable per context a subroutine box, a disposable a
  /// parallelogram, an undefined feature a red hexagon; problem edges are dotted and red. A
  /// cacheable's label gives its time-to-live, if it has one.
  public func mermaid() -> String {
    var lines = ["flowchart LR"]
    lines += clusters(
      opening: { scope in ["subgraph \(scope.id)[\"\(escaped(scope.path.joined(separator: " › ")))\"]"] },
      node: mermaidNode, closing: "end")
    for edge in edges {
      let label = escaped(edge.problem.map { "\($0): \(edge.location)" } ?? "\(edge.location)")
      lines.append("  \(edge.from) \(edge.problem == nil ? "-->" : "-.->")|\"\(label)\"| \(edge.to)")
    }
    let undefined = nodes.filter { $0.kind == nil }.map(\.id)
    if !undefined.isEmpty || edges.contains(where: { $0.problem != nil }) {
      lines.append("  classDef problem stroke:#d00,color:#d00")
      if !undefined.isEmpty { lines.append("  class \(undefined.joined(separator: ",")) problem") }
      let problems = edges.indices.filter { edges[$0].problem != nil }.map(String.init)
      if !problems.isEmpty { lines.append("  linkStyle \(problems.joined(separator: ",")) stroke:#d00,color:#d00") }
    }
    return lines.joined(separator: "\n")
  }

  private func mermaidNode(_ node: Node) -> String {
    let label = escaped(nodeLabel(node, lineBreak: "<br/>"))
    switch node.kind {
    case .static: return "\(node.id)[\"\(label)\"]"
    case .cacheable, .placeholder: return "\(node.id)([\"\(label)\"])"
    case .cacheablePerContext: return "\(node.id)[[\"\(label)\"]]"
    case .disposable: return "\(node.id)[/\"\(label)\"/]"
    case nil: return "\(node.id){{\"\(label)\"}}"
    }
  }

  /// The graph in Graphviz DOT: scopes are nested clusters, problem edges dashed and red.
  public func dot() -> String {
    var lines = ["digraph Features {", "  rankdir=LR;", "  node [fontname=\"Helvetica\"];"]
    lines += clusters(
      opening: { scope in
        ["subgraph cluster_\(scope.id) {", "  label=\(quoted(scope.path.joined(separator: " › ")));"]
      },
      node: dotNode, closing: "}")
    for edge in edges {
      let label = quoted(edge.problem.map { "\($0)\n\(edge.location)" } ?? "\(edge.location)")
      let style = edge.problem == nil ? "" : ", color=red, fontcolor=red, style=dashed"
      lines.append("  \(edge.from) -> \(edge.to) [label=\(label)\(style)];")
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  private func dotNode(_ node: Node) -> String {
    let shape =
      switch node.kind {
      case .static: "box"
      case .cacheable, .placeholder: "ellipse"
      case .cacheablePerContext: "ellipse, peripheries=2"
      case .disposable: "parallelogram"
      case nil: "hexagon, color=red, fontcolor=red"
      }
    return "\(node.id) [label=\(quoted(nodeLabel(node, lineBreak: "\n"))), shape=\(shape)];"
  }

  /// The graph as JSON:
  /// `{"scopes": [{"id", "path", "parent"}], "nodes": [{"id", "feature", "kind", "async", "mainActor",
  /// "implementation", "location", "scope", "timeToLiveMilliseconds"}], "edges": [{"from", "to",
  /// "location", "problem"}]}`. `kind` is `static`, `disposable`, `cacheable`, `cacheablePerContext`
  /// or `null` (undefined); locations are `"file:line"` strings; `timeToLiveMilliseconds` is a
  /// cacheable's time-to-live in whole milliseconds, or `null`.
  ///
  /// - Parameter pretty: Indent with two spaces, one member a line (`false` gives one line).
  public func json(pretty: Bool = true) -> String {
    func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
    let value = JSONValue.object([
      (
        "scopes",
        .array(
          scopes.map {
            .object([
              ("id", .string($0.id)), ("path", .array($0.path.map { .string($0) })), ("parent", optional($0.parent)),
            ])
          })
      ),
      (
        "nodes",
        .array(
          nodes.map {
            .object([
              ("id", .string($0.id)), ("feature", .string($0.feature)), ("kind", optional($0.kind?.jsonName)),
              ("async", .bool($0.isAsync)), ("mainActor", .bool($0.runsOnMainActor)),
              ("implementation", optional($0.implementation)),
              ("location", optional($0.location?.description)), ("scope", optional($0.scope)),
              ("timeToLiveMilliseconds", $0.timeToLive.map { .number($0.wholeMilliseconds) } ?? .null),
            ])
          })
      ),
      (
        "edges",
        .array(
          edges.map {
            .object([
              ("from", .string($0.from)), ("to", .string($0.to)), ("location", .string($0.location.description)),
              ("problem", optional($0.problem)),
            ])
          })
      ),
    ])
    return value.text(pretty: pretty)
  }

  /// The scopes as nested clusters, then the nodes outside every scope, one line each, indented
  /// for the body of a Mermaid flowchart or a DOT graph: the walk both renderers share.
  ///
  /// Each cluster is its `opening` lines, its nodes and its child clusters two spaces deeper, then
  /// `closing`; clusters and nodes keep the graph's order.
  ///
  /// - Parameters:
  ///   - opening: The lines that open a scope's cluster, relative to the cluster's indent.
  ///   - node: A node's line.
  ///   - closing: The line that closes a cluster.
  private func clusters(opening: (Scope) -> [String], node: (Node) -> String, closing: String) -> [String] {
    var lines: [String] = []
    func emit(_ scope: Scope, indent: String) {
      lines += opening(scope).map { indent + $0 }
      for member in nodes where member.scope == scope.id { lines.append(indent + "  " + node(member)) }
      for child in scopes where child.parent == scope.id { emit(child, indent: indent + "  ") }
      lines.append(indent + closing)
    }
    for root in scopes where root.parent == nil { emit(root, indent: "  ") }
    for member in nodes where member.scope == nil { lines.append("  " + node(member)) }
    return lines
  }

  /// `Greeter`, then `cacheable · Greeter.live()` on the next line (`cacheable, time-to-live 1 h ·
  /// AuthToken.live()` with a time-to-live, `cacheable, main actor · Settings.live()` for a loader
  /// on the main actor); `undefined` for a missing one.
  private func nodeLabel(_ node: Node, lineBreak: String) -> String {
    guard let kind = node.kind, let implementation = node.implementation else {
      return "\(node.feature)\(lineBreak)undefined"
    }
    let lifetime = kind == .cacheablePerContext ? "cacheable per context" : kind.name
    let timeToLive = node.timeToLive.map { ", time-to-live \($0.rendered)" } ?? ""
    let isolation = (node.isAsync ? ", async" : "") + (node.runsOnMainActor ? ", main actor" : "")
    return "\(node.feature)\(lineBreak)\(lifetime)\(isolation)\(timeToLive) · \(implementation)"
  }
}

/// Text safe inside a Mermaid quoted label.
private func escaped(_ text: String) -> String {
  text.replacing("\"", with: "#quot;")
}

/// A DOT string literal.
private func quoted(_ text: String) -> String {
  "\""
    + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
    .replacing("\n", with: "\\n") + "\""
}
