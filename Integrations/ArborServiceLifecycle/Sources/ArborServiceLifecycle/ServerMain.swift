import Arbor
import Foundation
import Logging

/// Runs a server from an `@main` entry point and ends a failed start-up (or run) with the error's
/// whole diagnostic in the log and exit status 1, never with a crash dump.
///
/// Top-level `try await app.runService()` in `main.swift` turns a thrown error (a tree that fails
/// validation, a port in use) into a fatal error: the process crashes, and output still buffered
/// is lost. Run the server through ``run(logger:isolation:_:)`` instead:
///
/// ```swift
/// @main struct Server {
///   static func main() async {
///     let logger = Logger(label: "server")
///     await ServerMain.run(logger: logger) {
///       try await makeApplication(logger: logger).runService()
///     }
///   }
/// }
/// ```
///
/// The error is logged critical: an Arbor error with its whole tree as the message (every problem of
/// a failed validation, each with its fix) and its diagnostic as metadata (the keys of
/// ``DiagnosticLogMetadata``); any other error with its description. It is logged once: a
/// ``FeaturesService`` of the server leaves its failed validation or start to this entry.
public enum ServerMain {
  /// Runs `server`; when it throws, logs the error, flushes standard output and standard error, and
  /// exits with status 1. Returns when `server` returns.
  ///
  /// - Parameters:
  ///   - logger: Where the error is logged.
  ///   - isolation: The caller's actor, captured for you: `server` runs there.
  ///   - server: Runs the server until it stops.
  public static func run(
    logger: Logger, isolation: isolated (any Actor)? = #isolation, _ server: () async throws -> Void
  ) async {
    let status = await exitStatus(logger: logger, server)
    guard status != 0 else { return }
    fflush(nil)
    exit(status)
  }

  /// Runs `server` and returns the status ``run(logger:isolation:_:)`` exits with: 0 when it returned, 1
  /// after logging the error it threw.
  ///
  /// ```swift
  /// let status = await ServerMain.exitStatus(logger: logger) { try await app.runService() }
  /// ```
  ///
  /// - Parameters:
  ///   - logger: Where the error is logged.
  ///   - isolation: The caller's actor, captured for you: `server` runs there.
  ///   - server: Runs the server until it stops.
  /// - Returns: The process's exit status.
  public static func exitStatus(
    logger: Logger, isolation: isolated (any Actor)? = #isolation, _ server: () async throws -> Void
  ) async -> Int32 {
    do {
      try await $logsStartUpFailures.withValue(true) { try await server() }
      return 0
    } catch let error as any DiagnosticError {
      logger.critical(
        "server stopped: \(error.diagnostic.renderedTree())",
        metadata: DiagnosticLogMetadata.metadata(for: error.diagnostic))
      return 1
    } catch {
      logger.critical("server stopped: \(String(reflecting: error))")
      return 1
    }
  }

  /// Whether the server's start-up failures reach ``exitStatus(logger:isolation:_:)``, which logs
  /// them: set while it runs the server, so that a ``FeaturesService`` does not log them first.
  @TaskLocal static var logsStartUpFailures = false
}
