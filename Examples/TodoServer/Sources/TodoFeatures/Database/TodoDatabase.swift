import Foundation
import Logging
import SQLiteNIO

/// The todos table of an SQLite database, over one connection: plain code, no Arbor, so the
/// server built on Arbor and the one wired by hand share it.
public final class TodoDatabase: Sendable {
  private let connection: SQLiteConnection

  private init(connection: SQLiteConnection) {
    self.connection = connection
  }

  /// Opens the database at `path` (in memory when `nil`); ``migrate()`` creates its table.
  ///
  /// - Parameters:
  ///   - path: The database file; `nil` for a database in memory.
  ///   - logger: The connection's logger.
  /// - Returns: The open database.
  public static func open(path: String?, logger: Logger) async throws -> TodoDatabase {
    let connection = try await SQLiteConnection.open(storage: path.map { .file(path: $0) } ?? .memory, logger: logger)
    return TodoDatabase(connection: connection)
  }

  /// Creates the todos table and its index if they are missing: the migration a server runs before
  /// it serves.
  public func migrate() async throws {
    _ = try await connection.query(
      """
      CREATE TABLE IF NOT EXISTS todos (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner TEXT NOT NULL,
        title TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
      )
      """)
    _ = try await connection.query("CREATE INDEX IF NOT EXISTS todos_owner ON todos (owner, id)")
  }

  /// The todos of `owner`, oldest first.
  public func todos(of owner: String) async throws -> [Todo] {
    try await connection.query(
      "SELECT id, title, done, created_at FROM todos WHERE owner = ?1 ORDER BY id", [.text(owner)]
    ).map(Self.todo)
  }

  /// Adds a todo for `owner`.
  public func add(_ title: String, for owner: String, at date: Date) async throws -> Todo {
    let rows = try await connection.query(
      "INSERT INTO todos (owner, title, created_at) VALUES (?1, ?2, ?3) RETURNING id, title, done, created_at",
      [.text(owner), .text(title), .float(date.timeIntervalSince1970)])
    return try Self.todo(rows[0])
  }

  /// Marks `owner`'s todo `id` done; `nil` when `owner` has no such todo.
  public func complete(_ id: Int64, for owner: String) async throws -> Todo? {
    try await connection.query(
      "UPDATE todos SET done = 1 WHERE id = ?1 AND owner = ?2 RETURNING id, title, done, created_at",
      [.integer(numericCast(id)), .text(owner)]
    ).first.map(Self.todo)
  }

  /// Deletes `owner`'s todo `id`; `false` when `owner` has no such todo.
  public func delete(_ id: Int64, for owner: String) async throws -> Bool {
    try await !connection.query(
      "DELETE FROM todos WHERE id = ?1 AND owner = ?2 RETURNING id", [.integer(numericCast(id)), .text(owner)]
    ).isEmpty
  }

  /// Closes the connection; the database cannot be used after it.
  public func close() async throws {
    try await connection.close()
  }

  private static func todo(_ row: SQLiteRow) throws -> Todo {
    guard let id = row.column("id")?.integer, let title = row.column("title")?.string,
      let done = row.column("done")?.integer, let created = row.column("created_at")?.double
    else { throw TodoDatabaseError.malformedRow("\(row)") }
    return Todo(id: Int64(id), title: title, done: done != 0, createdAt: Date(timeIntervalSince1970: created))
  }
}
