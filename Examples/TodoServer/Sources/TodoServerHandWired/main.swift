import Foundation
import Logging
import TodoApp

// The same server as todo-server, wired by hand, without Arbor: the load test's baseline. Same
// environment variables.
let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "todo-server")
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
let app = try await handWiredApplication(TodoConfiguration.fromEnvironment(environment), logger: logger)
try await app.runService()
