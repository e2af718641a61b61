/// The body's result, or `TimedOut` when it takes longer than `limit`: a bound on a wait for an
/// explicit signal, never the signal itself.
func withTimeout<T: Sendable>(
  _ limit: Duration = .seconds(10), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: limit)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let value = first else { throw TimedOut(limit: limit) }
    return value
  }
}

struct TimedOut: Error, CustomStringConvertible {
  let limit: Duration
  var description: String { "no signal within \(limit)" }
}

/// The first `count` values of `stream`, within the time limit: fewer if it finishes first.
func collect<T: Sendable>(_ stream: AsyncStream<T>, count: Int, within limit: Duration = .seconds(10)) async throws
  -> [T]
{
  try await withTimeout(limit) {
    var values: [T] = []
    for await value in stream {
      values.append(value)
      if values.count == count { break }
    }
    return values
  }
}
