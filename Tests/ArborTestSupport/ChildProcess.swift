import Foundation

/// This test binary, run again as a child process: how a test proves what happens in an XCTest run
/// that fails or crashes, or what code prints to standard output or ends its process with, without
/// failing, crashing or ending the run it is part of.
package struct ChildProcess {
  package var status: Int32
  package var crashed: Bool
  package var standardOutput: String
  package var standardError: String

  /// Whether this process is a test binary that can run its own tests: on Linux, where SwiftPM
  /// builds one executable for all tests. (On Apple platforms tests run inside a host.)
  package static var isAvailable: Bool {
    #if os(Linux)
      true
    #else
      false
    #endif
  }

  /// Whether this process is the child a test started with ``runChild(_:)`` to run `name`.
  package static func runs(_ name: String) -> Bool {
    ProcessInfo.processInfo.environment["ARBOR_CHILD"] == name
  }

  /// Runs the Swift Testing suite `name` alone in a child process that ``runs(_:)`` it: a suite
  /// enabled only there, whose standard output and exit status are the evidence a test checks.
  package static func runChild(_ name: String) async throws -> ChildProcess {
    try await runSwiftTesting(name, environment: ["ARBOR_CHILD": name])
  }

  /// Runs the XCTest cases matching `filter` in a child process, with `environment` added to this
  /// process's environment, and waits for it to end: suspended, not blocking a thread of the
  /// cooperative pool for as long as the child runs (long, under a sanitizer).
  package static func runXCTest(_ filter: String, environment: [String: String]) async throws -> ChildProcess {
    try await run(arguments: [filter], environment: environment)
  }

  /// Runs the Swift Testing tests matching `filter` in a child process, as ``runXCTest(_:environment:)``
  /// runs XCTest cases.
  package static func runSwiftTesting(_ filter: String, environment: [String: String]) async throws -> ChildProcess {
    try await run(arguments: ["--testing-library", "swift-testing", "--filter", filter], environment: environment)
  }

  /// Runs this test binary with `arguments` and `environment` added to this process's environment,
  /// and waits for it to end.
  private static func run(arguments: [String], environment: [String: String]) async throws -> ChildProcess {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-child-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputURL = directory.appendingPathComponent("stdout")
    let errorURL = directory.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
    process.arguments = arguments
    // No backtrace on the expected crash: it only slows the child down.
    process.environment = ProcessInfo.processInfo.environment
      .merging(environment) { $1 }.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
    process.standardOutput = try FileHandle(forWritingTo: outputURL)
    process.standardError = try FileHandle(forWritingTo: errorURL)
    try await withCheckedThrowingContinuation { (ended: CheckedContinuation<Void, any Error>) in
      process.terminationHandler = { _ in ended.resume() }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        ended.resume(throwing: error)
      }
    }
    return ChildProcess(
      status: process.terminationStatus, crashed: process.terminationReason == .uncaughtSignal,
      standardOutput: try text(of: outputURL), standardError: try text(of: errorURL))
  }

  /// The text of the file at `url`, read through a file handle: `String(contentsOf:)` leaves two
  /// buffers of Foundation's file reading to LeakSanitizer.
  private static func text(of url: URL) throws -> String {
    let file = try FileHandle(forReadingFrom: url)
    defer { try? file.close() }
    return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
  }

  /// The lines of standard output that start with `prefix`, without it.
  package func lines(after prefix: String) -> [String] {
    standardOutput.split(separator: "\n").compactMap { line in
      line.hasPrefix(prefix + " ") ? String(line.dropFirst(prefix.count + 1)) : nil
    }
  }
}
