import Arbor
import ArborMacros
import Foundation
import Logging

/// Where todos are kept: one instance for the whole tree, its SQLite connection opened by the
/// tree's migration before the server serves (or on first use), and closed when the root closes.
@Feature
public struct TodoStore: CacheableFeature {
  /// Opens the store and creates its table if it is missing: the tree's before-serving work, so
  /// that a store that cannot open fails start-up, not the first request.
  public var migrate: @Sendable () async throws -> Void
  /// The todos of an owner, oldest first.
  public var todos: @Sendable (_ owner: String) async throws -> [Todo]
  /// Adds a todo for an owner.
  public var add: @Sendable (_ title: String, _ owner: String, _ date: Date) async throws -> Todo
  /// Marks an owner's todo done; `nil` when the owner has no such todo.
  public var complete: @Sendable (_ id: Int64, _ owner: String) async throws -> Todo?
  /// Deletes an owner's todo; `false` when the owner has no such todo.
  public var delete: @Sendable (_ id: Int64, _ owner: String) async throws -> Bool
  /// Closes the store.
  public var close: @Sendable () async throws -> Void

  /// Todos in the SQLite database at ``DatabasePath`` (in memory when `nil`), opened by ``migrate`` (or on
  /// first use) and closed with the branch that loaded the store: the root, on shutdown. Loading it
  /// connects nothing, so validation, which runs this loader, opens no database.
  public static func sqlite() -> FeatureLoader {
    .cacheable { features in
      let logger = try features.instance(of: ServerLog.self).logger
      let path = features[DatabasePath.self]
      let database = LazyTodoDatabase {
        let database = try await TodoDatabase.open(path: path, logger: logger)
        logger.info("todo store opened", metadata: ["database": "\(path ?? ":memory:")"])
        return database
      }
      return TodoStore(
        migrate: { try await database.database().migrate() },
        todos: { try await database.database().todos(of: $0) },
        add: { try await database.database().add($0, for: $1, at: $2) },
        complete: { try await database.database().complete($0, for: $1) },
        delete: { try await database.database().delete($0, for: $1) },
        close: {
          try await database.close()
          logger.info("todo store closed")
        })
    } teardown: { store in
      try await store.close()
    }
  }
}
