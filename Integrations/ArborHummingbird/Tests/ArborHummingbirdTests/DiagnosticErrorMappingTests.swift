import Arbor
import ArborHummingbird
import ArborServiceLifecycleTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite struct DiagnosticErrorMappingTests {
  /// A server that resolves a feature nobody registered on `/broken`, logging to `entries`.
  func application(
    entries: RecordingLogHandler.Entries, errors: DiagnosticErrorMapping = DiagnosticErrorMapping()
  ) -> some ApplicationProtocol {
    let router = requestRouter(root: testTree(), errors: errors)
    router.get("broken") { request, context -> String in
      let feature: Unregistered = try await context.instance()
      return "\(feature.value)"
    }
    router.get("forbidden") { request, context -> String in
      throw HTTPError(.forbidden)
    }
    return Application(router: router, logger: entries.logger())
  }

  @Test func anArborErrorIsA500AndALogEntryWithItsDiagnostic() async throws {
    let entries = RecordingLogHandler.Entries()
    try await application(entries: entries).test(.router) { client in
      let response = try await client.execute(uri: "/broken", method: .get)
      #expect(response.status == .internalServerError)
      // The diagnostic stays in the log: the client sees no part of it.
      #expect(!String(buffer: response.body).contains("Unregistered"))
    }
    let errors = entries.all.filter { $0.level == .error }
    let entry = try #require(errors.first)
    #expect(errors.count == 1)
    #expect(
      entry.message
        == "FeatureUndefined: no implementation of Unregistered (ArborHummingbirdTests/DiagnosticErrorMappingTests.swift:17)"
    )
    #expect(entry.metadata["arbor.diagnostic.kind"] == "FeatureUndefined")
    #expect(entry.metadata["http.response.status_code"] == "500")
    #expect(entry.metadata["hb.request.id"] != nil)
    guard case .string(let json)? = entry.metadata[DiagnosticLogMetadata.diagnosticKey] else {
      Issue.record("no diagnostic JSON in \(entry.metadata)")
      return
    }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["kind"] as? String == "FeatureUndefined")
    #expect(object["feature"] as? String == "Unregistered")
    #expect((object["fix"] as? String)?.contains("registry.use") == true)
  }

  @Test func theAppMapsAnErrorToItsOwnStatus() async throws {
    let entries = RecordingLogHandler.Entries()
    let errors = DiagnosticErrorMapping(level: .warning) { error in
      error is FeatureUndefined ? .notImplemented : .internalServerError
    }
    try await application(entries: entries, errors: errors).test(.router) { client in
      let response = try await client.execute(uri: "/broken", method: .get)
      #expect(response.status == .notImplemented)
    }
    let entry = try #require(entries.all.first { $0.metadata["arbor.diagnostic.kind"] != nil })
    #expect(entry.level == .warning)
    #expect(entry.metadata["http.response.status_code"] == "501")
  }

  @Test func httpErrorsPassThroughUntouched() async throws {
    let entries = RecordingLogHandler.Entries()
    try await application(entries: entries).test(.router) { client in
      let response = try await client.execute(uri: "/forbidden", method: .get)
      #expect(response.status == .forbidden)
    }
    #expect(entries.all.allSatisfy { $0.metadata["arbor.diagnostic.kind"] == nil })
  }

  @Test func aScopeTheTreeNeverDefinedIsA500NotACrash() async throws {
    enum Undefined: FeaturesScope {}
    let entries = RecordingLogHandler.Entries()
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(middleware: FeaturesMiddleware(root: testTree(), scope: Undefined.self))
    router.get("any") { _, _ in "unreachable" }
    try await Application(router: router, logger: entries.logger()).test(.router) { client in
      let response = try await client.execute(uri: "/any", method: .get)
      #expect(response.status == .internalServerError)
    }
    let entry = try #require(entries.all.first { $0.metadata["arbor.diagnostic.kind"] != nil })
    #expect(entry.metadata["arbor.diagnostic.kind"] == "FeaturesScopeUndefined")
  }
}
