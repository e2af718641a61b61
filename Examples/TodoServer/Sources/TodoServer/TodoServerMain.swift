import ArborHummingbird
import Foundation
import Logging
import TodoApp

// Serves on 127.0.0.1:8080 unless HOST and PORT say otherwise; DATABASE names the SQLite file (in
// memory without it); TOKENS lists who can sign in (`token:user,token:user`); LOG_LEVEL sets the
// log level (`info` by default).
let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "todo-server")
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
// Arbor's reports (a placeholder member called, a branch dropped before its teardowns ran) go to
// the log, not to standard error.
LoggingIssueReporter(logger: logger).install()
let app = todoApplication(TodoConfiguration.fromEnvironment(environment), logger: logger)
try await app.runService()
