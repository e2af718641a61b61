import Synchronization

/// A `TodoDatabase` opened on first use, once, and closed only if it was opened.
///
/// The store's loader makes one without touching the disk, so anything that runs the loader
/// without keeping what it made (`validate` at start-up does) leaves no connection open.
final class LazyTodoDatabase: Sendable {
  private enum State {
    case unopened
    case opening(Task<TodoDatabase, any Error>)
    case closed
  }

  private let open: @Sendable () async throws -> TodoDatabase
  private let state = Mutex(State.unopened)

  init(open: @escaping @Sendable () async throws -> TodoDatabase) {
    self.open = open
  }

  /// The database, opened now if it was not; an opening that failed is tried again.
  func database() async throws -> TodoDatabase {
    let task: Task<TodoDatabase, any Error> = try state.withLock { state in
      switch state {
      case .opening(let task):
        return task
      case .unopened:
        let task = Task { try await open() }
        state = .opening(task)
        return task
      case .closed:
        throw TodoDatabaseError.closed
      }
    }
    do {
      return try await task.value
    } catch {
      state.withLock { state in
        if case .opening(let failed) = state, failed == task { state = .unopened }
      }
      throw error
    }
  }

  /// Closes the database if it was opened; later uses throw.
  func close() async throws {
    let task: Task<TodoDatabase, any Error>? = state.withLock { state in
      defer { state = .closed }
      guard case .opening(let task) = state else { return nil }
      return task
    }
    guard let database = try? await task?.value else { return }
    try await database.close()
  }
}
