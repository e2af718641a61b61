import Arbor
import Testing

/// `ArborDiagnosticsTests/File.swift:line` for a line of the calling file: what Arbor shows as the
/// site of a request made there.
func site(_ line: Int, file: StaticString = #fileID) -> String {
  "\(file):\(line)"
}

/// The ASCII rendering of a Unicode tree or line: the same text with each drawing character
/// replaced, which is what ``Diagnostic/Style/ascii`` promises.
func ascii(_ unicode: String) -> String {
  unicode
    .replacingAll("├─ ", with: "|- ")
    .replacingAll("└─ ", with: "`- ")
    .replacingAll("│  ", with: "|  ")
    .replacingAll(" → ", with: " -> ")
    .replacingAll(" › ", with: " > ")
    .replacingAll(" ← ", with: " <- ")
}

extension String {
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}

/// Checks every rendering of an error: `String(reflecting:)` is `tree`, the ASCII tree is `tree`
/// with ASCII drawing (or `asciiTree` when given), `String(describing:)` is `line`, and the ASCII
/// line is `line` with ASCII arrows.
func expectRenderings(
  of error: (any DiagnosticError)?, tree: String, asciiTree: String? = nil, line: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard let error else {
    Issue.record("no error was thrown", sourceLocation: sourceLocation)
    return
  }
  #expect(String(reflecting: error) == tree, sourceLocation: sourceLocation)
  #expect(error.diagnostic.renderedTree(style: .ascii) == (asciiTree ?? ascii(tree)), sourceLocation: sourceLocation)
  #expect(String(describing: error) == line, sourceLocation: sourceLocation)
  #expect(error.diagnostic.summary(style: .ascii) == ascii(line), sourceLocation: sourceLocation)
}
