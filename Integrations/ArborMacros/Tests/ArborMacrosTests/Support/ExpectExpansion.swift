import ArborMacrosPlugin
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Expands `@Feature` in `source` as the compiler would and expects `expandedSource`, the
/// diagnostics, and, with `applyFixIts`, the source those fix-its make (`fixedSource`).
///
/// swift-syntax's expansion check, with its failures recorded as Swift Testing issues.
func expectExpansion(
  _ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [], applyFixIts: [String]? = nil,
  fixedSource: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
  assertMacroExpansion(
    source, expandedSource: expandedSource, diagnostics: diagnostics,
    macroSpecs: ["Feature": MacroSpec(type: FeatureMacro.self)], applyFixIts: applyFixIts, fixedSource: fixedSource,
    indentationWidth: .spaces(2),
    failureHandler: { failure in
      Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    })
}
