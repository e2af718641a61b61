import ArborVapor
import Foundation
import TodoFeatures
import TodoVapor
import Vapor

/// The todo server on Vapor, with the environment variables of `todo-server`: HOST, PORT, DATABASE,
/// TOKENS, LOG_LEVEL.
///
/// An `@main` type, so a failed boot (a wiring mistake validation finds, a database that cannot be
/// opened) ends with its diagnostic in the log and exit status 1.
@main struct TodoServerVaporMain {
  static func main() async {
    let environment = ProcessInfo.processInfo.environment
    let logger = TodoConfiguration.logger(label: "todo-server-vapor", environment: environment)
    LoggingIssueReporter(logger: logger).install()
    await ServerMain.run(logger: logger) {
      // Vapor reads its own command line; the server takes its settings from the environment.
      let app = try await Application.make(Environment(name: "production", arguments: ["todo-server-vapor"]))
      app.logger = logger
      do {
        configureTodoServer(app, TodoConfiguration.fromEnvironment(environment))
        try await app.execute()
      } catch {
        try? await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()
    }
  }
}
