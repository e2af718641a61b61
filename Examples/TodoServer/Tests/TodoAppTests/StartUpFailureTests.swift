import Foundation
import Testing

/// Runs the `todo-server` and `todo-server-vapor` executables (built beside the tests by `swift test`)
/// as a person would, with a start-up that cannot succeed.
@Suite struct StartUpFailureTests {
  /// What the process did: how it ended and what it wrote.
  struct Outcome {
    var reason: Process.TerminationReason
    var status: Int32
    var output: String
  }

  /// Runs the executable `name` with `environment` and waits for it to end, at most `timeout`; a
  /// server still running then is stopped, and the outcome says so (terminated by a signal).
  func run(
    _ name: String, environment: [String: String], timeout: Duration = .seconds(60)
  ) async throws -> Outcome {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let executable = directory.appendingPathComponent(name)
    try #require(
      FileManager.default.isExecutableFile(atPath: executable.path),
      "no \(name) beside the tests in \(directory.path): run `swift build` in Examples/TodoServer")
    let process = Process()
    process.executableURL = executable
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let ended = AsyncStream<Void> { continuation in
      process.terminationHandler = { _ in continuation.finish() }
    }
    try process.run()
    let timer = Task {
      try await Task.sleep(for: timeout)
      process.terminate()
    }
    for await _ in ended {}
    timer.cancel()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return Outcome(reason: process.terminationReason, status: process.terminationStatus, output: text)
  }

  @Test(arguments: ["todo-server", "todo-server-vapor"])
  func aDatabaseThatCannotBeOpenedEndsStartUpWithItsErrorLoggedAndStatusOne(server: String) async throws {
    let outcome = try await run(
      server,
      environment: [
        "DATABASE": "/nonexistent-directory/todos.sqlite", "PORT": "0", "LOG_LEVEL": "info",
      ])
    // An exit, not a crash (a crash ends with a signal, or with status 132 from the shell).
    #expect(outcome.reason == .exit)
    #expect(outcome.status == 1)
    // The start's migration could not open the database: the whole diagnostic is logged.
    #expect(outcome.output.contains("critical \(server): arbor.diagnostic="))
    #expect(
      outcome.output.contains(
        "[ArborServiceLifecycle] server stopped: FeaturesStartFailed: could not start Root: 1 of 2 steps failed\n"))
    #expect(
      outcome.output.contains(
        "└─ cause: SQLiteError: cantOpen: Failed to open to SQLite database at /nonexistent-directory/todos.sqlite"))
    // The failed start closed the tree before the process ended: the store validation loaded, then
    // the store the start loaded, were closed.
    #expect(outcome.output.components(separatedBy: "todo store closed").count - 1 == 2)
    #expect(!outcome.output.contains("Fatal error"))
  }
}
