import Foundation
import Logging

/// What `Todos.live()` is backed by: one request's user, store, clock and log, and what each member
/// of `Todos` does with them.
final class LiveTodos: Sendable {
  let user: String
  let store: TodoStore
  let clock: WallClock
  let logger: Logger

  init(user: String, store: TodoStore, clock: WallClock, logger: Logger) {
    self.user = user
    self.store = store
    self.clock = clock
    self.logger = logger
  }

  func list() async throws -> [Todo] {
    let todos = try await store.todos(user)
    logger.debug("listed todos", metadata: ["count": "\(todos.count)"])
    return todos
  }

  func add(_ title: String) async throws -> Todo {
    let todo = try await store.add(title, user, clock.now())
    logger.info("added todo", metadata: ["todo.id": "\(todo.id)"])
    return todo
  }

  func complete(_ id: Int64) async throws -> Todo? {
    let todo = try await store.complete(id, user)
    logger.info("completed todo", metadata: ["todo.id": "\(id)", "found": "\(todo != nil)"])
    return todo
  }

  func delete(_ id: Int64) async throws -> Bool {
    let deleted = try await store.delete(id, user)
    logger.info("deleted todo", metadata: ["todo.id": "\(id)", "found": "\(deleted)"])
    return deleted
  }
}
