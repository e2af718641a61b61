import ArborHummingbird

/// Who signs in with which token: the README's app's own, not Arbor's.
struct Accounts: Sendable {
  func user(_ token: String) -> String? { token == "Bearer ann-token" ? "ann" : nil }
}

/// The signed-in user's todos.
struct Todos: CacheableFeature {
  var list: @Sendable () async throws -> [String]
  static var placeholder: Todos { Todos(list: unimplemented("Todos.list")) }

  static func live() -> FeatureLoader {
    .cacheable { features in
      let session = try features.context(for: SessionScope.self)
      return Todos(list: { ["\(session.user): buy milk"] })
    }
  }
}
