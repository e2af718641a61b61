// The JSON of `which(Property.self)`: the writer, the scope steps and the locations of diagnostics'
// JSON.
extension Features.PropertyOrigin: Renderable {
  /// The answer as a JSON object, in the key order ``json(pretty:)`` documents.
  package var jsonValue: JSONValue {
    .object([
      ("property", .string(property)),
      ("scope", .array(scope.map(\.jsonValue))),
      ("value", value.map(\.jsonValue) ?? .null),
      ("hidden", .array(hidden.map(\.jsonValue))),
      ("diagnostic", diagnostic.map(\.jsonValue) ?? .null),
    ])
  }
}

extension Features.PropertyOrigin.Source {
  /// `{"value", "kind", "location", "branch", "isThisBranch", "registry"}`.
  var jsonValue: JSONValue {
    let kind =
      switch self.kind {
      case .set: "set"
      case .registry: "registry"
      case .default: "default"
      }
    return .object([
      ("value", .string(value)),
      ("kind", .string(kind)),
      ("location", location.map(\.jsonValue) ?? .null),
      ("branch", branch.map { .array($0.map(\.jsonValue)) } ?? .null),
      ("isThisBranch", .bool(isThisBranch)),
      ("registry", registry.map(JSONValue.string) ?? .null),
    ])
  }
}
