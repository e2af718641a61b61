import Synchronization

/// A `TodoDatabase` opened on first use, once, and closed only if it was opened.
///
/// The store's loader makes one without touching the disk, so anything that runs the loader
/// without keeping what it made (`validate` at start-up does) leaves no connection open.
final class LazyTodoDatabase: Sendable {
  private enum State {
    case unopened
    case opening(Task<TodoDatabase, any Error>)
    case open(TodoDatabase)
    case closed
  }

  private let open: @Sendable () async throws -> TodoDatabase
  private let state = Mutex(State.unopened)
  /// The database once opened, and until closed: what every query reads, without the lock (all of
  /// a server's requests would otherwise take it, one after the other).
  private let opened = AtomicLazyReference<TodoDatabase>()
  /// Set when ``close()`` starts; queries then throw.
  private let isClosed = Atomic<Bool>(false)

  init(open: @escaping @Sendable () async throws -> TodoDatabase) {
    self.open = open
  }

  /// The database, opened now if it was not; an opening that failed is tried again.
  func database() async throws -> TodoDatabase {
    if let database = opened.load() {
      guard !isClosed.load(ordering: .acquiring) else { throw TodoDatabaseError.closed }
      return database
    }
    let found: (database: TodoDatabase?, opening: Task<TodoDatabase, any Error>?) = try state.withLock { state in
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
    if let database = found.database { return database }
    guard let task = found.opening else { throw TodoDatabaseError.closed }
    do {
      let database = try await task.value
      state.withLock { state in
        if case .opening(let opening) = state, opening == task {
          state = .open(database)
          _ = opened.storeIfNil(database)
        }
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
    isClosed.store(true, ordering: .releasing)
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
