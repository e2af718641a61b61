import Arbor
import ArborHummingbird
import ArborIntegrationFixtures
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
    let router = requestRouter(
      root: testTree(notFound: { HTTPError(.notFound, message: "no todo at \($0)") }), errors: errors)
    router.get("broken") { request, context -> String in
      let feature: Unregistered = try await context.instance()
      return "\(feature.value)"
    }
    router.get("forbidden") { request, context -> String in
      throw HTTPError(.forbidden)
    }
    router.get("todos/:id") { request, context -> String in
      let todo: Todo = try await context.instance()
      return todo.title
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
        == "FeatureUndefined: no implementation of Unregistered (ArborHummingbirdTests/DiagnosticErrorMappingTests.swift:19)"
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

  @Test func anHTTPErrorALoaderThrowsKeepsItsStatusAndMessageAndIsLoggedOnceBelowError() async throws {
    let entries = RecordingLogHandler.Entries()
    try await application(entries: entries).test(.router) { client in
      let found = try await client.execute(uri: "/todos/1", method: .get)
      #expect(String(buffer: found.body) == "buy milk")
      let missing = try await client.execute(uri: "/todos/7", method: .get)
      #expect(missing.status == .notFound)
      #expect(String(buffer: missing.body) == #"{"error":{"message":"no todo at \/todos\/7"}}"#)
    }
    let logged = entries.all.filter { $0.metadata["arbor.diagnostic.kind"] != nil }
    let entry = try #require(logged.first)
    #expect(logged.count == 1)
    #expect(entry.level == .info)
    #expect(entry.metadata["http.response.status_code"] == "404")
    #expect(
      entry.message
        == "FeatureLoadingFailed: could not load Todo (ArborHummingbirdTests/DiagnosticErrorMappingTests.swift:26)"
        + " ← HTTPError: Not Found, no todo at /todos/7")
  }

  @Test func aServerErrorALoaderThrowsIsLoggedAtErrorLevel() async throws {
    let entries = RecordingLogHandler.Entries()
    let root = FeaturesRoot { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(Todo.unavailable())
      }
    }
    let router = requestRouter(root: root)
    router.get("todo") { request, context -> String in try await context.instance(of: Todo.self).title }
    try await Application(router: router, logger: entries.logger()).test(.router) { client in
      let status1 = try await client.execute(uri: "/todo", method: .get).status
      #expect(status1 == .serviceUnavailable)
    }
    let entry = try #require(entries.all.first { $0.metadata["arbor.diagnostic.kind"] != nil })
    #expect(entry.level == .error)
    #expect(entry.message.hasSuffix(" ← HTTPError: Service Unavailable"))
  }

  @Test func theAppMapsAnErrorToItsOwnStatus() async throws {
    let entries = RecordingLogHandler.Entries()
    let errors = DiagnosticErrorMapping(level: .warning, clientErrorLevel: .debug) { error in
      error is FeatureUndefined ? .notImplemented : .internalServerError
    }
    try await application(entries: entries, errors: errors).test(.router) { client in
      let response = try await client.execute(uri: "/broken", method: .get)
      #expect(response.status == .notImplemented)
      let status2 = try await client.execute(uri: "/todos/7", method: .get).status
      #expect(status2 == .notFound)
    }
    let logged = entries.all.filter { $0.metadata["arbor.diagnostic.kind"] != nil }
    #expect(logged.map(\.level) == [.warning, .debug])
    #expect(logged.map { $0.metadata["http.response.status_code"] } == ["501", "404"])
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

extension Todo {
  /// A store that is down: every load throws a 503.
  static func unavailable() -> FeatureLoader {
    .cacheable { _ -> Todo in throw HTTPError(.serviceUnavailable) }
  }
}
