/// The body of `POST /api/todos`.
public struct NewTodo: Decodable, Sendable {
  /// What to do.
  public var title: String
}
