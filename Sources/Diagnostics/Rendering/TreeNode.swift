/// A node of a text tree: a headline, labelled facts, then labelled child nodes.
///
/// Every ``Renderable`` report (a diagnostic, the answer of `Features.which`) is drawn through it,
/// so every tree Arbor prints is drawn the same way.
package struct TreeNode {
  package var headline: String
  package var facts: [(label: String, value: String)]
  package var children: [(label: String, node: TreeNode)]

  package init(
    headline: String, facts: [(label: String, value: String)], children: [(label: String, node: TreeNode)] = []
  ) {
    self.headline = headline
    self.facts = facts
    self.children = children
  }

  /// The tree's lines joined with `\n`, without a final newline.
  package func rendered(style: Diagnostic.Style) -> String {
    var lines: [String] = []
    append(to: &lines, prefix: "", style: style)
    return lines.joined(separator: "\n")
  }

  private enum Item {
    case fact(String, String)
    case child(String, TreeNode)
  }

  private func append(to lines: inout [String], prefix: String, style: Diagnostic.Style) {
    let headlineLines = headline.split(separator: "\n", omittingEmptySubsequences: false)
    lines.append(String(headlineLines[0]))
    let items = facts.map { Item.fact($0.label, $0.value) } + children.map { Item.child($0.label, $0.node) }
    // Continuation lines of a multi-line headline hang under the first child's trunk.
    let headlineIndent = prefix + (items.isEmpty ? "   " : style.trunk)
    for line in headlineLines.dropFirst() { lines.append(headlineIndent + line) }

    for (index, item) in items.enumerated() {
      let isLast = index == items.count - 1
      let branch = prefix + (isLast ? style.lastBranch : style.branch)
      let childPrefix = prefix + (isLast ? "   " : style.trunk)
      switch item {
      case .fact(let label, let value):
        let valueLines = value.split(separator: "\n", omittingEmptySubsequences: false)
        lines.append(branch + label + ": " + valueLines[0])
        let hang = childPrefix + String(repeating: " ", count: label.count + 2)
        for line in valueLines.dropFirst() { lines.append(hang + line) }
      case .child(let label, let node):
        var nested: [String] = []
        node.append(to: &nested, prefix: childPrefix, style: style)
        lines.append(branch + label + ": " + nested[0])
        lines.append(contentsOf: nested.dropFirst())
      }
    }
  }
}
