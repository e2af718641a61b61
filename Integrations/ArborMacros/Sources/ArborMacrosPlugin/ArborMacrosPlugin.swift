import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides Arbor's macros.
@main
struct ArborMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [FeatureMacro.self]
}
