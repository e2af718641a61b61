import SwiftDiagnostics

/// What `@Feature` says about a declaration it cannot expand as written, and how to fix it.
///
/// Every message names what to write instead: a change to the member, or the part of the feature to
/// write by hand.
enum FeatureMessage: DiagnosticMessage {
  case notAStruct
  case noLifetime(feature: String)
  case conditionalMembers
  case conditionalAttributes(member: String)
  case severalBindings
  case notAnIdentifier
  case missingType(member: String)
  case initAccessor(member: String)
  case unknownAttribute(member: String, attribute: String)
  case letMember(member: String)
  case unusedDefault(member: String, why: String)
  case missingDefault(member: String, returnType: String, why: String)
  case defaultNotAClosure(member: String)
  case defaultNotOneExpression(member: String)
  case defaultUsesArguments(member: String)
  case valueWithoutDefault(member: String, type: String)
  case closureBehindAlias(member: String, type: String)
  case unsupportedParameter(member: String, parameter: String, what: String)

  private static let ownPlaceholder =
    "or write 'static var placeholder' yourself, and @Feature generates only the initialiser"
  private static let byHand = "or remove @Feature and write the initialiser and 'placeholder' by hand"

  var message: String {
    switch self {
    case .notAStruct:
      return "@Feature applies to a struct of closures; write this declaration's 'placeholder' by hand"
    case .noLifetime(let feature):
      return "@Feature needs '\(feature)' to declare its lifetime where it is declared: "
        + "add ': StaticFeature', ': DisposableFeature' or ': CacheableFeature' to the struct"
    case .conditionalMembers:
      return "@Feature cannot generate an initialiser for stored members inside '#if' "
        + "(a parameter list has no '#if'); move them out of the '#if' block, \(Self.byHand)"
    case .conditionalAttributes(let member):
      return "@Feature cannot read the attributes of '\(member)' inside '#if'; "
        + "write them without '#if', \(Self.byHand)"
    case .severalBindings:
      return "@Feature reads one member per declaration; declare each member with its own 'var'"
    case .notAnIdentifier:
      return "@Feature reads members named by one identifier; declare each member with its own 'var'"
    case .missingType(let member):
      return "@Feature needs the type of '\(member)' for the initialiser; write it: 'var \(member): <#Type#>'"
    case .initAccessor(let member):
      return "@Feature cannot generate an initialiser for '\(member)', which has an 'init' accessor; "
        + "make it a stored 'var', \(Self.byHand)"
    case .unknownAttribute(let member, let attribute):
      return "@Feature does not know what '@\(attribute)' on '\(member)' does to its storage "
        + "(a property wrapper changes what the initialiser takes); remove it, \(Self.byHand)"
    case .letMember(let member):
      return "'\(member)' is a 'let', so a test cannot patch it with 'patch(\\.\(member), with:)'; make it a 'var'"
    case .unusedDefault(let member, let why):
      return "the default of '\(member)' is never used: \(why); remove it"
    case .missingDefault(let member, let returnType, let why):
      return "'\(member)' returns '\(returnType)' without throwing\(why), so its placeholder needs a value "
        + "to return: give the member a default that returns it, '= { <#\(returnType)#> }', "
        + Self.ownPlaceholder
    case .defaultNotAClosure(let member):
      return "@Feature takes the placeholder value of '\(member)' from a closure literal that returns it; "
        + "write the default as '{ <#value#> }', \(Self.ownPlaceholder)"
    case .defaultNotOneExpression(let member):
      return "the default of '\(member)' must return one expression, the value its placeholder returns: "
        + "'{ <#value#> }'; \(Self.ownPlaceholder)"
    case .defaultUsesArguments(let member):
      return "the default of '\(member)' uses the closure's arguments, but a placeholder returns one value "
        + "whatever it is called with; return a value that needs no argument, \(Self.ownPlaceholder)"
    case .valueWithoutDefault(let member, let type):
      return "'\(member)' is not written as a closure type, so @Feature needs its placeholder value: give it "
        + "a default, '= <#\(type)#>'. If '\(type)' names a closure type, write the closure type itself: "
        + "a macro cannot see through a typealias. Or write 'static var placeholder' yourself, and @Feature "
        + "generates only the initialiser"
    case .closureBehindAlias(let member, let type):
      return "'\(member)' has a closure as its value but its type '\(type)' is not written as a closure type, "
        + "which a macro cannot see through (a typealias); write the closure type itself, "
        + "'@Sendable (<#Arguments#>) -> <#Result#>'"
    case .unsupportedParameter(let member, let parameter, let what):
      return "the placeholder of '\(member)' cannot take \(what) ('\(parameter)'): 'unimplemented' takes "
        + "plain parameters; \(Self.ownPlaceholder)"
    }
  }

  var diagnosticID: MessageID {
    MessageID(domain: "ArborMacros", id: "\(self)".prefix { $0 != "(" }.description)
  }

  var severity: DiagnosticSeverity {
    switch self {
    case .letMember, .unusedDefault: return .warning
    default: return .error
    }
  }
}

/// A change `@Feature` offers with one of its messages.
struct FeatureFixIt: FixItMessage {
  let message: String

  var fixItID: MessageID { MessageID(domain: "ArborMacros", id: message) }
}
