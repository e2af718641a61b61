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
  /// `{"name", "kind", "isAsync", "runsOnMainActor", "location", "scope", "cachedIn", "isCachedInAncestor",
  /// "timeToLiveMilliseconds", "instance"}`.
  var jsonValue: JSONValue {
    .object([
      ("name", .string(name)),
      ("kind", .string(kind.jsonName)),
      ("isAsync", .bool(isAsync)),
      ("runsOnMainActor", .bool(runsOnMainActor)),
      ("location", location.map(\.jsonValue) ?? .null),
      ("scope", scope.map(JSONValue.string) ?? .null),
      ("cachedIn", cachedIn.map { .array($0.map(\.jsonValue)) } ?? .null),
      ("isCachedInAncestor", .bool(isCachedInAncestor)),
      ("timeToLiveMilliseconds", timeToLive.map { .number($0.wholeMilliseconds) } ?? .null),
      ("instance", instance.map(\.jsonValue) ?? .null),
    ])
  }
}

extension Features.Which.InstanceAge {
  /// `{"loadedAtMilliseconds", "expiresAtMilliseconds", "ageMilliseconds", "expiresInMilliseconds"}`.
  var jsonValue: JSONValue {
    .object([
      ("loadedAtMilliseconds", .number(loadedAt.wholeMilliseconds)),
      ("expiresAtMilliseconds", expiresAt.map { .number($0.wholeMilliseconds) } ?? .null),
      ("ageMilliseconds", .number(age.wholeMilliseconds)),
      ("expiresInMilliseconds", expiresIn.map { .number($0.wholeMilliseconds) } ?? .null),
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
