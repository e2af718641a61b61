import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import ArborVapor
import Foundation
import Testing
import VaporTesting

@Suite struct DiagnosticErrorMappingTests {
  /// A server with a route that resolves a feature nobody registered, one whose loader throws
  /// `Abort(.notFound)` on purpose, and one that throws an `Abort` itself.
  func configure(
    _ app: Application, entries: RecordingLogHandler.Entries, errors: DiagnosticErrorMapping = DiagnosticErrorMapping()
  ) {
    app.logger = entries.logger()
    app.middleware.use(
      FeaturesMiddleware(
        root: testTree(notFound: { Abort(.notFound, reason: "no todo at \($0)") }), scope: RequestScope.self,
        errors: errors
      ) { RequestInfo($0) })
    app.get("broken") { req async throws -> String in
      "\(try await req.features.instance(of: Unregistered.self).value)"
    }
    app.get("todos", ":id") { req async throws -> String in
      try await req.features.instance(of: Todo.self).title
    }
    app.get("forbidden") { _ async throws -> String in throw Abort(.forbidden) }
  }

  /// The entries that carry an Arbor diagnostic.
  func arborEntries(_ entries: RecordingLogHandler.Entries) -> [RecordingLogHandler.Entry] {
    entries.all.filter { $0.metadata[DiagnosticLogMetadata.kindKey] != nil }
  }

  @Test func anArborErrorIsA500AndOneLogEntryWithItsDiagnostic() async throws {
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      configure(app, entries: entries)
      let response = try await app.testing().sendRequest(.GET, "/broken")
      #expect(response.status == .internalServerError)
      // The diagnostic stays in the log: the client sees Vapor's error JSON and no part of it.
      #expect(response.body.string == #"{"error":true,"reason":"Internal Server Error"}"#)
    }
    let logged = arborEntries(entries)
    let entry = try #require(logged.first)
    #expect(logged.count == 1)
    #expect(entries.all.filter { $0.level >= .warning }.count == 1)
    #expect(entry.level == .error)
    #expect(
      entry.message
        == "FeatureUndefined: no implementation of Unregistered (ArborVaporTests/DiagnosticErrorMappingTests.swift:22)")
    #expect(entry.metadata["http.response.status_code"] == "500")
    guard case .string(let json)? = entry.metadata[DiagnosticLogMetadata.diagnosticKey] else {
      Issue.record("no diagnostic JSON in \(entry.metadata)")
      return
    }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["feature"] as? String == "Unregistered")
  }

  @Test func anAbortALoaderThrowsKeepsItsStatusAndReasonAndIsLoggedBelowError() async throws {
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      configure(app, entries: entries)
      let found = try await app.testing().sendRequest(.GET, "/todos/1")
      #expect(found.body.string == "buy milk")
      let missing = try await app.testing().sendRequest(.GET, "/todos/7")
      #expect(missing.status == .notFound)
      #expect(missing.body.string == #"{"error":true,"reason":"no todo at \/todos\/7"}"#)
    }
    let logged = arborEntries(entries)
    let entry = try #require(logged.first)
    #expect(logged.count == 1)
    #expect(entries.all.allSatisfy { $0.level < .warning })
    #expect(entry.level == .info)
    #expect(entry.metadata["http.response.status_code"] == "404")
    #expect(entry.metadata[DiagnosticLogMetadata.kindKey] == "FeatureLoadingFailed")
    #expect(
      entry.message
        == "FeatureLoadingFailed: could not load Todo (ArborVaporTests/DiagnosticErrorMappingTests.swift:25)"
        + " ← Abort: 404: no todo at /todos/7")
  }

  @Test func theAppMapsAnErrorToItsOwnStatusAndLevel() async throws {
    let entries = RecordingLogHandler.Entries()
    let errors = DiagnosticErrorMapping(level: .warning, clientErrorLevel: .debug) { error in
      error is FeatureUndefined ? .notImplemented : .internalServerError
    }
    try await withApp { app in
      configure(app, entries: entries, errors: errors)
      let status1 = try await app.testing().sendRequest(.GET, "/broken").status
      #expect(status1 == .notImplemented)
      let status2 = try await app.testing().sendRequest(.GET, "/todos/7").status
      #expect(status2 == .notFound)
    }
    #expect(arborEntries(entries).map(\.level) == [.warning, .debug])
    #expect(arborEntries(entries).map { $0.metadata["http.response.status_code"] } == ["501", "404"])
  }

  @Test func anAbortAHandlerThrowsIsVaporsAsItWas() async throws {
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      configure(app, entries: entries)
      let response = try await app.testing().sendRequest(.GET, "/forbidden")
      #expect(response.status == .forbidden)
    }
    #expect(arborEntries(entries).isEmpty)
  }

  @Test func aScopeTheTreeNeverDefinedIsA500NotACrash() async throws {
    enum Undefined: FeaturesScope {}
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      app.logger = entries.logger()
      app.middleware.use(FeaturesMiddleware(root: testTree(), scope: Undefined.self))
      app.get("any") { _ in "unreachable" }
      let status3 = try await app.testing().sendRequest(.GET, "/any").status
      #expect(status3 == .internalServerError)
    }
    #expect(arborEntries(entries).map { $0.metadata[DiagnosticLogMetadata.kindKey] } == ["FeaturesScopeUndefined"])
  }
}
