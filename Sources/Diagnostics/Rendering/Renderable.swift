/// A report Arbor renders the way it renders a diagnostic: a text tree and JSON, beside a summary
/// line of its own.
///
/// ``Diagnostic`` and `Features.Which` conform. Their public `renderedTree(style:)` and
/// `json(pretty:)` are ``renderTree(style:)`` and ``renderJSON(pretty:)``, so every report is drawn by
/// one tree renderer (``TreeNode``) and written by one JSON writer, and a report nested in another
/// (a diagnostic under `which`) renders as it does on its own.
package protocol Renderable {
  /// The report as the root node of a text tree.
  func treeNode(style: Diagnostic.Style) -> TreeNode

  /// The report as a JSON value, with keys in a documented, stable order.
  var jsonValue: JSONValue { get }
}

extension Renderable {
  /// The whole tree, lines separated by `\n`, without a final newline.
  package func renderTree(style: Diagnostic.Style) -> String {
    treeNode(style: style).rendered(style: style)
  }

  /// The JSON text, indented with two spaces a level when `pretty`, else on one line.
  package func renderJSON(pretty: Bool) -> String {
    jsonValue.text(pretty: pretty)
  }
}

extension Diagnostic: Renderable {}
