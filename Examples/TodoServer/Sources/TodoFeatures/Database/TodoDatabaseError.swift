/// What can go wrong with the todos table besides SQLite's own errors.
public enum TodoDatabaseError: Error {
  /// A row without the columns of a todo.
  case malformedRow(String)
  /// The database was used after it was closed.
  case closed
}
