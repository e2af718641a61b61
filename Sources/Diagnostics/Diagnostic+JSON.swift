extension Diagnostic {
  /// The diagnostic as a JSON object with stable keys, for tools.
  ///
  /// Keys always appear in this order; optional facts that are absent are `null`, lists may be empty:
  /// `kind`, `message`, `location` (`{"fileID", "line"}`), `feature`, `scope` (`[{"name", "context"}]`),
  /// `path` (`[{"feature", "location"}]`), `implementation` (`{"name", "location", "scope"}`),
  /// `searched` (`[String]`), `notes` (`[{"label", "value"}]`), `fix`, `causes` (`[Diagnostic]`).
  /// Keys are stable: new facts may be added as new keys. `Docs/Diagnostics.md` has the full schema
  /// with types and nullability, and an example.
  ///
  /// ```swift
  /// let json = error.diagnostic.json()
  /// ```
  ///
  /// - Parameter pretty: Indent with two spaces, one member a line (`false` gives one line).
  /// - Returns: The JSON text.
  public func json(pretty: Bool = true) -> String {
    var writer = JSONWriter(pretty: pretty)
    writer.write(jsonValue)
    return writer.output
  }

  var jsonValue: JSONValue {
    .object([
      ("kind", .string(kind)),
      ("message", .string(message)),
      ("location", location.map(\.jsonValue) ?? .null),
      ("feature", feature.map(JSONValue.string) ?? .null),
      (
        "scope",
        .array(
          scope.map { .object([("name", .string($0.name)), ("context", $0.context.map(JSONValue.string) ?? .null)]) })
      ),
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

extension SourceLocation {
  var jsonValue: JSONValue {
    .object([("fileID", .string(fileID.description)), ("line", .number(Int(line)))])
  }
}

/// A JSON document with ordered object members: enough for diagnostics, without Foundation.
enum JSONValue {
  case null
  case string(String)
  case number(Int)
  case array([JSONValue])
  case object([(String, JSONValue)])
}

struct JSONWriter {
  let pretty: Bool
  var output = ""

  mutating func write(_ value: JSONValue, depth: Int = 0) {
    switch value {
    case .null: output += "null"
    case .number(let number): output += String(number)
    case .string(let string): writeString(string)
    case .array(let elements):
      writeContainer("[", "]", elements, depth: depth) { writer, element in writer.write(element, depth: depth + 1) }
    case .object(let members):
      writeContainer("{", "}", members, depth: depth) { writer, member in
        writer.writeString(member.0)
        writer.output += writer.pretty ? ": " : ":"
        writer.write(member.1, depth: depth + 1)
      }
    }
  }

  private mutating func writeContainer<Element>(
    _ open: String, _ close: String, _ elements: [Element], depth: Int,
    _ writeElement: (inout JSONWriter, Element) -> Void
  ) {
    output += open
    guard !elements.isEmpty else { return output += close }
    for (index, element) in elements.enumerated() {
      if index > 0 { output += "," }
      if pretty { output += "\n" + String(repeating: "  ", count: depth + 1) }
      writeElement(&self, element)
    }
    if pretty { output += "\n" + String(repeating: "  ", count: depth) }
    output += close
  }

  private mutating func writeString(_ string: String) {
    output += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
