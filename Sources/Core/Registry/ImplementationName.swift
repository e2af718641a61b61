/// The name diagnostics give an implementation, kept in parts and made into text only when a
/// diagnostic shows it: the name of a feature type (a generic one most of all) costs a demangling,
/// which registering a feature must not pay.
package enum ImplementationName: Sendable {
  /// A loader written in a member of the feature's type: `Greeter.live()`.
  case member(String, of: any Any.Type)
  /// A static feature's registered value: `Clock value`.
  case value(of: any Any.Type)
  /// An implementation type: `LiveGreeter`.
  case type(any Any.Type)

  /// The name as diagnostics show it.
  package var text: String {
    switch self {
    case .member(let member, let type): "\(type).\(member)"
    case .value(let type): "\(type) value"
    case .type(let type): String(describing: type)
    }
  }
}
