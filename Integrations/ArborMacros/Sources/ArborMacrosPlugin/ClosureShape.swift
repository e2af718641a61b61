import SwiftSyntax

/// A member's type when it is written as a closure type: its function type, whether it is optional,
/// and the effects that decide which `unimplemented` its placeholder calls.
struct ClosureShape {
  /// The function type, without attributes, parentheses or the optional around it.
  let function: FunctionTypeSyntax
  /// Whether the member is an optional closure, `(() -> Void)?`: not `@escaping` in the initialiser.
  let isOptional: Bool

  /// The shape of `type`, or `nil` when it is not written as a closure type.
  init?(_ type: TypeSyntax) {
    if let optional = type.as(OptionalTypeSyntax.self) {
      guard let function = Self.function(in: optional.wrappedType) else { return nil }
      (self.function, isOptional) = (function, true)
    } else if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      guard let function = Self.function(in: optional.wrappedType) else { return nil }
      (self.function, isOptional) = (function, true)
    } else {
      guard let function = Self.function(in: type) else { return nil }
      (self.function, isOptional) = (function, false)
    }
  }

  /// The typed error the closure throws, when it names one other than `any Error` and `Never`.
  var errorType: String? {
    guard let type = function.effectSpecifiers?.throwsClause?.type?.trimmedDescription else { return nil }
    return Self.untypedErrors.contains(type) || Self.never.contains(type) ? nil : type
  }

  /// Whether the placeholder can throw `FeatureUnimplemented`: the closure throws `any Error`.
  var throwsUnimplemented: Bool {
    guard let clause = function.effectSpecifiers?.throwsClause else { return false }
    guard let type = clause.type?.trimmedDescription else { return true }
    return Self.untypedErrors.contains(type)
  }

  /// Whether the closure returns nothing.
  var returnsVoid: Bool {
    ["Void", "()", "Swift.Void"].contains(function.returnClause.type.trimmedDescription)
  }

  /// What `unimplemented` cannot take in `parameter`, or `nil` when it can take it.
  static func unsupported(_ parameter: TupleTypeElementSyntax) -> String? {
    var type = parameter.type
    var attributes: [String] = []
    while true {
      if let attributed = type.as(AttributedTypeSyntax.self) {
        attributes += attributed.attributes.compactMap { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription }
        type = attributed.baseType
      } else if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
        only.firstName == nil
      {
        type = only.type
      } else {
        break
      }
    }
    if attributes.contains("autoclosure") { return "an '@autoclosure' parameter" }
    if type.is(FunctionTypeSyntax.self) && !attributes.contains("escaping") {
      return "a non-escaping closure parameter"
    }
    return nil
  }

  private static let untypedErrors: Set<String> = ["any Error", "Error", "Swift.Error", "any Swift.Error"]
  private static let never: Set<String> = ["Never", "Swift.Never"]

  /// The function type `type` is written as, through attributes (`@Sendable`) and parentheses.
  private static func function(in type: TypeSyntax) -> FunctionTypeSyntax? {
    if let function = type.as(FunctionTypeSyntax.self) { return function }
    if let attributed = type.as(AttributedTypeSyntax.self) { return function(in: attributed.baseType) }
    if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
      only.firstName == nil
    {
      return function(in: only.type)
    }
    return nil
  }
}
