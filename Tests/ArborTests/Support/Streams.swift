/// The first `count` values of `stream`: fewer if it finishes first.
func firstValues<Value>(_ count: Int, of stream: AsyncStream<Value>) async -> [Value] {
  var values: [Value] = []
  for await value in stream {
    values.append(value)
    if values.count == count { break }
  }
  return values
}
