import ArborHummingbird
import Foundation
import Logging
import TodoApp

/// Serves on 127.0.0.1:8080 unless HOST and PORT say otherwise; DATABASE names the SQLite file (in
/// memory without it); TOKENS lists who can sign in (`token:user,token:user`); LOG_LEVEL sets the
/// log level (`info` by default).
///
/// An `@main` type rather than top-level code, so a failed start-up (a wiring mistake validation
/// finds, a database that cannot be opened, a port in use) ends with its diagnostic in the log and
/// exit status 1, not with a crash that loses buffered output.
@main struct TodoServerMain {
  static func main() async {
    let environment = ProcessInfo.processInfo.environment
    let logger = TodoConfiguration.logger(label: "todo-server", environment: environment)
    // Arbor's reports (a placeholder member called, a branch dropped before its teardowns ran) go to
    // the log, not to standard error.
    LoggingIssueReporter(logger: logger).install()
    await ServerMain.run(logger: logger) {
      try await todoApplication(TodoConfiguration.fromEnvironment(environment), logger: logger).runService()
    }
  }
}
