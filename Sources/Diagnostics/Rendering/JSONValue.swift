/// A JSON document with ordered object members: enough for Arbor's reports, without Foundation.
package enum JSONValue {
  case null
  case bool(Bool)
  case string(String)
  case number(Int)
  case array([JSONValue])
  case object([(String, JSONValue)])
}

extension JSONValue {
  /// This value as JSON text.
  ///
  /// - Parameter pretty: Indent with two spaces, one member a line (`false` gives one line).
  package func text(pretty: Bool) -> String {
    var writer = JSONWriter(pretty: pretty)
    writer.write(self)
    return writer.output
  }
}
