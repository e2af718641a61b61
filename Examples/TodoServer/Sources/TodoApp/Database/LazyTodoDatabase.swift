import Synchronization

/// A `TodoDatabase` opened on first use, once, and closed only if it was opened.
///
/// The store's loader makes one without touching the disk, so anything that runs the loader
/// without keeping what it made (`validate` at start-up does) leaves no connection open.
final class LazyTodoDatabase: Sendable {
  private enum State {
    case unopened
    case opening(Task<TodoDatabase, any Error>)
    /// Opened: a query reads it under the lock, with no task to await.
    case open(TodoDatabase)
    case closed
  }

  private let open: @Sendable () async throws -> TodoDatabase
  private let state = Mutex(State.unopened)

  init(open: @escaping @Sendable () async throws -> TodoDatabase) {
    self.open = open
  }

  /// The database, opened now if it was not; an opening that failed is tried again.
  func database() async throws -> TodoDatabase {
    let opened: (database: TodoDatabase?, opening: Task<TodoDatabase, any Error>?) = try state.withLock { state in
      switch state {
      case .open(let database):
        return (database, nil)
      case .opening(let task):
        return (nil, task)
      case .unopened:
        let task = Task { try await open() }
        state = .opening(task)
        return (nil, task)
      case .closed:
        throw TodoDatabaseError.closed
      }
    }
    // Either the database, or the task opening it to wait for.
    if let database = opened.database { return database }
    guard let task = opened.opening else { throw TodoDatabaseError.closed }
    do {
      let database = try await task.value
      state.withLock { state in
        if case .opening(let opened) = state, opened == task { state = .open(database) }
      }
      return database
    } catch {
      state.withLock { state in
        if case .opening(let failed) = state, failed == task { state = .unopened }
      }
      throw error
    }
  }

  /// Closes the database if it was opened; later uses throw.
  func close() async throws {
    let current = state.withLock { state in
      defer { state = .closed }
      return state
    }
    switch current {
    case .open(let database):
      try await database.close()
    case .opening(let task):
      guard let database = try? await task.value else { return }
      try await database.close()
    case .unopened, .closed:
      return
    }
  }
}
