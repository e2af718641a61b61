import SwiftDiagnostics
import SwiftSyntax

/// A stored member of a feature: what the initialiser takes and what the placeholder holds.
struct FeatureMember {
  /// The member's name as written, backticks kept, so it stays valid as a label and in `self.name`.
  let name: String
  /// The initialiser parameter's type: the member's type, `@escaping` when it is a closure.
  let parameterType: String
  /// The member's value in the placeholder; `nil` when the struct writes its own placeholder.
  let placeholder: String?
}

/// Reads the stored members of a feature struct, and says why it cannot expand the ones it refuses.
struct FeatureMembers {
  /// The feature's name, as placeholders report it: `Clock` in `Clock.now`.
  let feature: String
  /// Whether the struct declares `static var placeholder` itself: then no member needs a placeholder.
  let writesOwnPlaceholder: Bool
  /// The line a member is declared on, as a literal: where its placeholder reports it is written.
  let line: (PatternBindingSyntax) -> ExprSyntax?
  private(set) var members: [FeatureMember] = []
  private(set) var diagnostics: [Diagnostic] = []

  init(feature: String, writesOwnPlaceholder: Bool, line: @escaping (PatternBindingSyntax) -> ExprSyntax?) {
    self.feature = feature
    self.writesOwnPlaceholder = writesOwnPlaceholder
    self.line = line
  }

  /// Whether a member was refused: then the macro generates nothing.
  var hasErrors: Bool { diagnostics.contains { $0.diagMessage.severity == .error } }

  /// Attributes that leave a member's storage as it is written.
  private static let knownAttributes: Set<String> = ["available", "preconcurrency", "usableFromInline"]

  /// Reads one member declaration of the struct's body.
  mutating func read(_ decl: DeclSyntax) {
    if let conditional = decl.as(IfConfigDeclSyntax.self) {
      if Self.declaresStoredMembers(conditional) {
        diagnose(.conditionalMembers, at: Syntax(conditional.clauses.first?.poundKeyword ?? conditional.poundEndif))
      }
      return
    }
    guard let variable = decl.as(VariableDeclSyntax.self), Self.isInstanceMember(variable) else { return }
    guard variable.bindings.count == 1, let binding = variable.bindings.first else {
      diagnose(.severalBindings, at: Syntax(variable.bindings))
      return
    }
    guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else {
      diagnose(.notAnIdentifier, at: Syntax(binding.pattern))
      return
    }
    let name = identifier.text
    let plainName = name.trimmingBackticks
    if let accessors = binding.accessorBlock?.accessors {
      guard case .accessors(let list) = accessors else { return }  // a getter: computed
      if list.contains(where: { $0.accessorSpecifier.tokenKind == .keyword(.`init`) }) {
        diagnose(.initAccessor(member: plainName), at: Syntax(binding))
        return
      }
      let observers: [TokenKind] = [.keyword(.willSet), .keyword(.didSet)]
      guard list.allSatisfy({ observers.contains($0.accessorSpecifier.tokenKind) }) else { return }  // computed
    }
    for attribute in variable.attributes {
      switch attribute {
      case .attribute(let attribute):
        let attributeName = attribute.attributeName.trimmedDescription
        if !Self.knownAttributes.contains(attributeName) {
          diagnose(.unknownAttribute(member: plainName, attribute: attributeName), at: Syntax(attribute))
          return
        }
      case .ifConfigDecl(let conditional):
        diagnose(.conditionalAttributes(member: plainName), at: Syntax(conditional))
        return
      }
    }
    let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
    if isLet && binding.initializer != nil { return }  // a constant: neither initialised nor replaced
    guard let type = binding.typeAnnotation?.type else {
      diagnose(
        .missingType(member: plainName), at: Syntax(binding),
        fixIt: "Write the type of '\(plainName)'",
        replacing: Syntax(binding),
        with: Syntax(
          binding.with(\.pattern, binding.pattern.trimmed).with(
            \.typeAnnotation,
            TypeAnnotationSyntax(colon: .colonToken(trailingTrivia: .space), type: TypeSyntax("<#Type#>")).with(
              \.trailingTrivia, .space))))
      return
    }
    if let closure = ClosureShape(type) {
      if isLet {
        diagnose(
          .letMember(member: plainName), at: Syntax(variable.bindingSpecifier), fixIt: "Make '\(plainName)' a 'var'",
          replacing: Syntax(variable.bindingSpecifier),
          with: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
      }
      let placeholder = writesOwnPlaceholder ? nil : closurePlaceholder(closure, of: plainName, binding: binding)
      if !writesOwnPlaceholder && placeholder == nil { return }
      members.append(
        FeatureMember(
          name: name,
          parameterType: closure.isOptional ? type.trimmedDescription : "@escaping \(type.trimmedDescription)",
          placeholder: placeholder))
    } else {
      var placeholder: String?
      if let value = binding.initializer?.value {
        guard !value.is(ClosureExprSyntax.self) else {
          diagnose(.closureBehindAlias(member: plainName, type: type.trimmedDescription), at: Syntax(type))
          return
        }
        placeholder = value.trimmedDescription
      } else if !writesOwnPlaceholder {
        diagnose(
          .valueWithoutDefault(member: plainName, type: type.trimmedDescription), at: Syntax(binding),
          fixIt: "Give '\(plainName)' a default",
          replacing: Syntax(binding),
          with: Syntax(binding.withDefault("<#\(type.trimmedDescription)#>")))
        return
      }
      members.append(FeatureMember(name: name, parameterType: type.trimmedDescription, placeholder: placeholder))
    }
  }

  /// The placeholder of a closure member, or `nil` after saying why there is none.
  private mutating func closurePlaceholder(
    _ closure: ClosureShape, of member: String, binding: PatternBindingSyntax
  ) -> String? {
    for parameter in closure.function.parameters {
      if let unsupported = ClosureShape.unsupported(parameter) {
        diagnose(
          .unsupportedParameter(member: member, parameter: parameter.trimmedDescription, what: unsupported),
          at: Syntax(parameter))
        return nil
      }
    }
    let reported = "\"\(feature).\(member)\""
    let site = line(binding).map { ", line: \($0.trimmedDescription)" } ?? ""
    if closure.throwsUnimplemented || closure.returnsVoid {
      if let initializer = binding.initializer {
        let why =
          closure.throwsUnimplemented
          ? "its placeholder throws 'FeatureUnimplemented'" : "its placeholder returns nothing"
        diagnose(
          .unusedDefault(member: member, why: why), at: Syntax(initializer), fixIt: "Remove the default",
          replacing: Syntax(binding), with: Syntax(binding.with(\.initializer, nil).trimmed))
      }
      return "Arbor.unimplemented(\(reported)\(site))"
    }
    let returnType = closure.function.returnClause.type.trimmedDescription
    guard let initializer = binding.initializer else {
      let why = closure.errorType.map { " (it throws '\($0)', not 'FeatureUnimplemented')" } ?? ""
      let arguments = closure.function.parameters.map { _ in "_" }.joined(separator: ", ")
      let body = arguments.isEmpty ? "{ <#\(returnType)#> }" : "{ \(arguments) in <#\(returnType)#> }"
      diagnose(
        .missingDefault(member: member, returnType: returnType, why: why), at: Syntax(binding),
        fixIt: "Give '\(member)' a default that returns its placeholder value",
        replacing: Syntax(binding), with: Syntax(binding.withDefault(body)))
      return nil
    }
    guard let literal = initializer.value.as(ClosureExprSyntax.self) else {
      diagnose(.defaultNotAClosure(member: member), at: Syntax(initializer.value))
      return nil
    }
    guard let value = literal.returnedExpression else {
      diagnose(.defaultNotOneExpression(member: member), at: Syntax(literal))
      return nil
    }
    if literal.usesArguments(in: value) {
      diagnose(.defaultUsesArguments(member: member), at: Syntax(value))
      return nil
    }
    return "Arbor.unimplemented(\(reported), placeholder: \(value.trimmedDescription)\(site))"
  }

  private mutating func diagnose(
    _ message: FeatureMessage, at node: Syntax, fixIt: String? = nil, replacing old: Syntax? = nil,
    with new: Syntax? = nil
  ) {
    var fixIts: [FixIt] = []
    if let fixIt, let old, let new {
      fixIts.append(FixIt(message: FeatureFixIt(message: fixIt), changes: [.replace(oldNode: old, newNode: new)]))
    }
    diagnostics.append(Diagnostic(node: node, message: message, fixIts: fixIts))
  }

  /// Whether a member is one of each instance's own, not a `static` or `lazy` one.
  private static func isInstanceMember(_ variable: VariableDeclSyntax) -> Bool {
    !variable.modifiers.contains { modifier in
      [.keyword(.static), .keyword(.class), .keyword(.lazy)].contains(modifier.name.tokenKind)
    }
  }

  /// Whether a `#if` block (or one nested in it) declares a stored instance member.
  private static func declaresStoredMembers(_ conditional: IfConfigDeclSyntax) -> Bool {
    conditional.clauses.contains { clause in
      guard case .decls(let members) = clause.elements else { return false }
      return members.contains { item in
        if let nested = item.decl.as(IfConfigDeclSyntax.self) { return declaresStoredMembers(nested) }
        guard let variable = item.decl.as(VariableDeclSyntax.self), isInstanceMember(variable) else { return false }
        return variable.bindings.contains { binding in
          guard let accessors = binding.accessorBlock?.accessors else { return true }
          guard case .accessors(let list) = accessors else { return false }
          return !list.contains { [.keyword(.get), .keyword(.set)].contains($0.accessorSpecifier.tokenKind) }
        }
      }
    }
  }
}

extension String {
  /// The name without the backticks that let a keyword be one: `default` for `` `default` ``.
  var trimmingBackticks: String {
    hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
  }
}

extension PatternBindingSyntax {
  /// The binding with `value` as its default, keeping what followed the type (a trailing comment) after it.
  fileprivate func withDefault(_ value: String) -> PatternBindingSyntax {
    guard let typeAnnotation else { return self }
    let after = typeAnnotation.type.trailingTrivia
    return
      self
      .with(\.typeAnnotation, typeAnnotation.with(\.type, typeAnnotation.type.with(\.trailingTrivia, .space)))
      .with(
        \.initializer,
        InitializerClauseSyntax(
          equal: .equalToken(trailingTrivia: .space), value: ExprSyntax("\(raw: value)").with(\.trailingTrivia, after)))
  }
}

extension ClosureExprSyntax {
  /// The one expression the closure returns: its body `expression` or `return expression`.
  fileprivate var returnedExpression: ExprSyntax? {
    guard statements.count == 1, let item = statements.first?.item else { return nil }
    if let expression = item.as(ExprSyntax.self) { return expression }
    if let statement = item.as(ReturnStmtSyntax.self) { return statement.expression }
    return nil
  }

  /// Whether `expression` reads one of the closure's parameters (`$0` or a named one).
  fileprivate func usesArguments(in expression: ExprSyntax) -> Bool {
    var names: Set<String> = []
    switch signature?.parameterClause {
    case .simpleInput(let parameters):
      for parameter in parameters { names.insert(parameter.name.text) }
    case .parameterClause(let clause):
      for parameter in clause.parameters { names.insert((parameter.secondName ?? parameter.firstName).text) }
    case nil:
      break
    }
    names.remove("_")
    return expression.tokens(viewMode: .sourceAccurate).contains { token in
      if case .dollarIdentifier = token.tokenKind { return true }
      if case .identifier(let text) = token.tokenKind { return names.contains(text) }
      return false
    }
  }
}
