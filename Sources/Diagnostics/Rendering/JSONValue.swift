/// A JSON document with ordered object members: enough for Arbor's reports, without Foundation.
package enum JSONValue {
  case null
  case bool(Bool)
  case string(String)
  case number(Int)
  case array([JSONValue])
  case object([(String, JSONValue)])
}
