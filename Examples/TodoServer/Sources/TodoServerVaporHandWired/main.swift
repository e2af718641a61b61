import Foundation
import TodoFeatures
import Vapor

// The same server as todo-server-vapor, wired by hand, without Arbor: the Vapor load test's
// baseline. Same environment variables.
let environment = ProcessInfo.processInfo.environment
let logger = TodoConfiguration.logger(label: "todo-server-vapor", environment: environment)
let app = try await Application.make(Environment(name: "production", arguments: ["todo-server-vapor-hand-wired"]))
app.logger = logger
do {
  try await configureHandWiredServer(app, TodoConfiguration.fromEnvironment(environment))
  try await app.execute()
} catch {
  try? await app.asyncShutdown()
  throw error
}
try await app.asyncShutdown()
