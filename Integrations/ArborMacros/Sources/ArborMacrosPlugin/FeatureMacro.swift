import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Feature`: generates a feature struct's `static var placeholder` and memberwise initialiser.
///
/// The placeholder sets every closure member to `Arbor.unimplemented("Type.member")` (with the
/// member's default as its `placeholder:` value when it returns a value without throwing, and the
/// member's line as the placeholder's site), and every
/// other stored member to its default. The initialiser takes every stored member, in order, and has
/// the struct's access level. The generated code names only `Arbor`, qualified, so it needs no
/// import of its own and cannot pick up another module's `unimplemented`.
public enum FeatureMacro: MemberMacro {
  /// The initialiser and the placeholder, each unless the struct declares its own; nothing, after
  /// diagnosing it, for a member the macro cannot expand.
  ///
  /// - Parameters:
  ///   - node: The `@Feature` attribute.
  ///   - declaration: The declaration it is attached to: a feature struct.
  ///   - protocols: Unused: the macro adds no conformance.
  ///   - context: Where diagnostics go, and where the members' lines come from.
  /// - Returns: The members to add to the struct.
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let feature = declaration.as(StructDeclSyntax.self) else {
      context.diagnose(Diagnostic(node: node, message: FeatureMessage.notAStruct))
      return []
    }
    let name = feature.name.trimmedDescription
    guard declaresLifetime(feature) else {
      context.diagnose(Diagnostic(node: feature.name, message: FeatureMessage.noLifetime(feature: name)))
      return []
    }
    let writesOwnPlaceholder = feature.memberBlock.members.contains { declaresPlaceholder($0.decl) }
    // The placeholder of a member reports the member's own line (the file is the default `#fileID`,
    // which in an expansion is the file the macro is used in).
    var members = FeatureMembers(feature: name, writesOwnPlaceholder: writesOwnPlaceholder) { binding in
      context.location(of: binding, at: .afterLeadingTrivia, filePathMode: .fileID)?.line
    }
    for item in feature.memberBlock.members {
      members.read(item.decl)
    }
    for diagnostic in members.diagnostics {
      context.diagnose(diagnostic)
    }
    guard !members.hasErrors else { return [] }

    let access = accessModifier(of: feature)
    let labels = members.members.map(\.name.trimmingBackticks)
    let writesOwnInitialiser = feature.memberBlock.members.contains { declaresInitialiser($0.decl, labels: labels) }
    var generated = writesOwnInitialiser ? [] : [initialiser(of: members.members, access: access)]
    if !writesOwnPlaceholder {
      generated.append(placeholder(of: members.members, access: access))
    }
    return generated
  }

  /// The memberwise initialiser.
  private static func initialiser(of members: [FeatureMember], access: String) -> DeclSyntax {
    let parameters = members.map { "\($0.name): \($0.parameterType)" }
    let assignments = members.map { "self.\($0.name) = \($0.name)" }
    let parameterList = parameters.isEmpty ? "" : "\n" + parameters.joined(separator: ",\n") + "\n"
    return """
      /// Creates the feature from an implementation of each member.
      \(raw: access)init(\(raw: parameterList)) {
      \(raw: assignments.joined(separator: "\n"))
      }
      """
  }

  /// The placeholder: every closure member unimplemented.
  private static func placeholder(of members: [FeatureMember], access: String) -> DeclSyntax {
    let arguments = members.map { "\($0.name): \($0.placeholder ?? "")" }
    let argumentList = arguments.isEmpty ? "" : "\n" + arguments.joined(separator: ",\n") + "\n"
    return """
      /// The feature with every member unimplemented: calling one reports it, and a test patches the
      /// members it uses.
      \(raw: access)static var placeholder: Self {
      Self(\(raw: argumentList))
      }
      """
  }

  /// Whether the struct conforms to one of Arbor's lifetime protocols in its own declaration.
  private static func declaresLifetime(_ feature: StructDeclSyntax) -> Bool {
    let lifetimes: Set<String> = ["StaticFeature", "DisposableFeature", "CacheableFeature"]
    return feature.inheritanceClause?.tokens(viewMode: .sourceAccurate).contains { token in
      lifetimes.contains(token.text)
    } ?? false
  }

  /// Whether `decl` is an initialiser whose parameters are the members, in order: the struct's own
  /// memberwise initialiser.
  private static func declaresInitialiser(_ decl: DeclSyntax, labels: [String]) -> Bool {
    guard let initialiser = decl.as(InitializerDeclSyntax.self) else { return false }
    return initialiser.signature.parameterClause.parameters.map(\.firstName.text.trimmingBackticks) == labels
  }

  /// Whether `decl` is the struct's own `static var placeholder` (or `static let`).
  private static func declaresPlaceholder(_ decl: DeclSyntax) -> Bool {
    guard let variable = decl.as(VariableDeclSyntax.self),
      variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) })
    else { return false }
    return variable.bindings.contains {
      $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "placeholder"
    }
  }

  /// The access modifier, with its trailing space, that the generated members take: the struct's
  /// own, `fileprivate` for a `private` struct (whose members must be visible beside it).
  private static func accessModifier(of feature: StructDeclSyntax) -> String {
    for modifier in feature.modifiers {
      switch modifier.name.tokenKind {
      case .keyword(.public), .keyword(.open): return "public "
      case .keyword(.package): return "package "
      case .keyword(.fileprivate), .keyword(.private): return "fileprivate "
      default: continue
      }
    }
    return ""
  }
}
