extension Diagnostic {
  /// The diagnostic as a JSON object with stable keys, for tools.
  ///
  /// Keys always appear in this order; optional facts that are absent are `null`, lists may be empty:
  /// `kind`, `message`, `location` (`{"fileID", "line"}`), `feature`, `scope` (`[{"name", "context"}]`),
  /// `path` (`[{"feature", "location"}]`), `implementation` (`{"name", "location", "scope"}`),
  /// `searched` (`[String]`), `notes` (`[{"label", "value"}]`), `fix`, `causes` (`[Diagnostic]`).
  /// Keys are stable: new facts may be added as new keys. `Sources/Core/Arbor.docc/Diagnostics.md` has the full schema
  /// with types and nullability, and an example.
  ///
  /// ```swift
  /// let json = error.diagnostic.json()
  /// ```
  ///
  /// - Parameter pretty: Indent with two spaces, one member a line (`false` gives one line).
  /// - Returns: The JSON text.
  public func json(pretty: Bool = true) -> String {
    renderJSON(pretty: pretty)
  }

  /// This diagnostic as a JSON object, in the key order ``json(pretty:)`` documents.
  package var jsonValue: JSONValue {
    .object([
      ("kind", .string(kind)),
      ("message", .string(message)),
      ("location", location.map(\.jsonValue) ?? .null),
      ("feature", feature.map(JSONValue.string) ?? .null),
      ("scope", .array(scope.map(\.jsonValue))),
      (
        "path",
        .array(
          path.map { .object([("feature", .string($0.feature)), ("location", $0.location.map(\.jsonValue) ?? .null)]) })
      ),
      (
        "implementation",
        implementation.map { implementation in
          .object([
            ("name", .string(implementation.name)),
            ("location", implementation.location.map(\.jsonValue) ?? .null),
            ("scope", implementation.scope.map(JSONValue.string) ?? .null),
          ])
        } ?? .null
      ),
      ("searched", .array(searched.map(JSONValue.string))),
      ("notes", .array(notes.map { .object([("label", .string($0.label)), ("value", .string($0.value))]) })),
      ("fix", fix.map(JSONValue.string) ?? .null),
      ("causes", .array(causes.map(\.jsonValue))),
    ])
  }
}

extension Diagnostic.ScopeStep {
  /// `{"name", "context"}`: the context is `null` for a scope without one.
  package var jsonValue: JSONValue {
    .object([("name", .string(name)), ("context", context.map(JSONValue.string) ?? .null)])
  }
}

extension SourceLocation {
  /// `{"fileID", "line"}`.
  package var jsonValue: JSONValue {
    .object([("fileID", .string(fileID.description)), ("line", .number(Int(line)))])
  }
}
