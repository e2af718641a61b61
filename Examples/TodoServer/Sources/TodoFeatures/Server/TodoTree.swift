import Arbor
import ArborConfiguration
import Logging

/// The server's features tree: a clock, a logger, accounts and the todo store at the root; a
/// session per signed-in user; a request log and the user's todos per request.
///
/// ```swift
/// let root = todoTree(TodoConfiguration(), logger: Logger(label: "todo"))
/// ```
///
/// - Parameters:
///   - configuration: Where the store is, who can sign in.
///   - logger: The server's logger.
/// - Returns: The root.
public func todoTree(_ configuration: TodoConfiguration, logger: Logger) -> Features {
  FeaturesRoot { registry in
    registry.configure(ServerPort.self, DatabasePath.self, from: configuration.settings)
    registry.use(WallClock.system)
    registry.use(ServerLog(logger: logger))
    registry.use(Accounts.fixed(configuration.tokens))
    // Made by start(), before the server serves; its migration opens the database and creates its
    // table, so a database that cannot open fails start-up. Closed within five seconds on shutdown.
    registry.use(
      TodoStore.sqlite(), eager: true, startTimeLimit: .seconds(10),
      teardownTimeLimit: .seconds(5))
    registry.beforeServing { features in
      try await features.instance(of: TodoStore.self).migrate()
    }
    registry.defineScope(SessionScope.self) { registry in
      registry.use(UserSession.live())
      // Requests are branched below the caller's session.
      registry.defineScope(RequestScope.self) { registry in
        registry.use(RequestLog.live())
        registry.use(Todos.live())
      }
    }
  }
}
