import Arbor
import ArborMacros
import Foundation
import Logging

/// The signed-in user's todos, for one request: what the routes call. Each call is logged with the
/// request's id.
@Feature
public struct Todos: CacheableFeature {
  /// The user's todos, oldest first.
  public var list: @Sendable () async throws -> [Todo]
  /// Adds a todo.
  public var add: @Sendable (_ title: String) async throws -> Todo
  /// Marks a todo done; `nil` when the user has no such todo.
  public var complete: @Sendable (_ id: Int64) async throws -> Todo?
  /// Deletes a todo; `false` when the user has no such todo.
  public var delete: @Sendable (_ id: Int64) async throws -> Bool

  /// The session user's todos in the store, dated by the wall clock, logged through the request's
  /// log.
  public static func live() -> FeatureLoader {
    .cacheable { features in
      let todos = LiveTodos(
        user: try features.context(for: SessionScope.self).user, store: try features.instance(),
        clock: try features.instance(), logger: try features.instance(of: RequestLog.self).logger)
      let served = try features.instance(of: UserSession.self).serve()
      todos.logger.debug("todos opened", metadata: ["session.requests": "\(served)"])
      // Each member captures only `todos`, an object: its closure needs no allocation of its own.
      return Todos(
        list: { try await todos.list() }, add: { try await todos.add($0) },
        complete: { try await todos.complete($0) }, delete: { try await todos.delete($0) })
    }
  }
}
