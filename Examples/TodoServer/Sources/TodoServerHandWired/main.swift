import Foundation
import Logging
import TodoApp

// The same server as todo-server, wired by hand, without Arbor: the load test's baseline. Same
// environment variables, and STAGE (`middleware`, `branch` or `session`) to add a part of the Arbor
// server's request to it, for the load test's STAGE.
let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "todo-server")
logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
let configuration = TodoConfiguration.fromEnvironment(environment)
if let name = environment["STAGE"], !name.isEmpty {
  guard let stage = BuildUpStage(rawValue: name) else {
    logger.critical("STAGE must be one of: \(BuildUpStage.allCases.map(\.rawValue).joined(separator: ", "))")
    exit(2)
  }
  try await buildUpApplication(stage, configuration, logger: logger).runService()
} else {
  try await handWiredApplication(configuration, logger: logger).runService()
}
