/// Writes a ``JSONValue`` as text, indented or on one line.
struct JSONWriter {
  let pretty: Bool
  var output = ""

  mutating func write(_ value: JSONValue, depth: Int = 0) {
    switch value {
    case .null: output += "null"
    case .bool(let bool): output += bool ? "true" : "false"
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
