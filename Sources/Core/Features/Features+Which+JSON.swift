// The JSON of `which`: the writer, the scope steps and the locations of diagnostics' JSON.
extension Features.Which: Renderable {
  /// The answer as a JSON object, in the key order ``json(pretty:)`` documents.
  package var jsonValue: JSONValue {
    .object([
      ("feature", .string(feature)),
      ("scope", .array(scope.map(\.jsonValue))),
      ("implementation", implementation.map(\.jsonValue) ?? .null),
      ("diagnostic", diagnostic.map(\.jsonValue) ?? .null),
    ])
  }
}

extension Features.Which.Implementation {
  /// `{"name", "kind", "isAsync", "location", "scope", "cachedIn", "isCachedInAncestor"}`.
  var jsonValue: JSONValue {
    .object([
      ("name", .string(name)),
      ("kind", .string(kind.jsonName)),
      ("isAsync", .bool(isAsync)),
      ("location", location.map(\.jsonValue) ?? .null),
      ("scope", scope.map(JSONValue.string) ?? .null),
      ("cachedIn", cachedIn.map { .array($0.map(\.jsonValue)) } ?? .null),
      ("isCachedInAncestor", .bool(isCachedInAncestor)),
    ])
  }
}

extension Features.Which.Kind {
  /// The kind's name in JSON: the case's name.
  var jsonName: String {
    switch self {
    case .static: "static"
    case .disposable: "disposable"
    case .cacheable: "cacheable"
    case .cacheablePerContext: "cacheablePerContext"
    case .placeholder: "placeholder"
    }
  }
}
