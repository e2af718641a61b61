import Arbor
import ArborIntegrationFixtures
@_spi(Integrations) import ArborServiceLifecycle
import ArborServiceLifecycleTesting
import Testing

@Suite struct SessionKeyMissingTests {
  @Test func itNamesTheKeyClosureWhatANilKeyMeansAndBothFixes() throws {
    let root = sessionsOnlyTree()
    let undefined = try #require(
      #expect(throws: FeaturesScopeUndefined.self) {
        try root.branch(RequestScope.self, context: RequestInfo(id: "1", path: "/"), file: "App/Routes.swift", line: 12)
      })
    let error = SessionKeyMissing(
      undefined, refusal: "throw HTTPError(.unauthorized)", at: SourceLocation(fileID: "App/Routes.swift", line: 12))
    #expect(
      String(reflecting: error) == """
        SessionKeyMissing: a request without a session key cannot branch RequestScope from Root
        ├─ middleware at: App/Routes.swift:12
        ├─ key: the key: closure returned nil, which branches the request from the sessions' parent (Root)
        ├─ fix: refuse a request without a key in the key: closure: throw HTTPError(.unauthorized),
        │       or, to serve signed-out requests, define RequestScope where Root can branch it:
        │       registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
        └─ cause: FeaturesScopeUndefined: RequestScope is not defined in Root
           ├─ requested at: App/Routes.swift:12
           ├─ scope: Root
           ├─ defined in: Root › SessionScope › RequestScope
           └─ fix: branch SessionScope first: features.branch(SessionScope.self, context: ...).branch(RequestScope.self, context: ...)
                   or define it with registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
        """)
  }

  @Test func aMiddlewareWhoseKeyCanBeNilFailsTheStartUpOfATreeWhoseParentCannotBranchTheScope() async throws {
    let root = sessionsOnlyTree()
    SessionKeyMissing.checkAtStartUp(
      RequestScope.self, from: root, refusal: "throw HTTPError(.unauthorized)",
      at: SourceLocation(fileID: "App/Routes.swift", line: 12))
    let entries = RecordingLogHandler.Entries()
    let service = FeaturesService(root: root, logger: entries.logger(), contexts: validationContexts)
    let error = await #expect(throws: SessionKeyMissing.self) { try await service.validate() }
    #expect(
      error.map { String(reflecting: $0) } == """
        SessionKeyMissing: a request without a session key cannot branch RequestScope from Root
        ├─ middleware at: App/Routes.swift:12
        ├─ key: the key: closure can return nil, which branches the request from the sessions' parent (Root)
        └─ fix: refuse a request without a key in the key: closure: throw HTTPError(.unauthorized) instead of returning nil,
                or, to serve signed-out requests, define RequestScope where Root can branch it:
                registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
        """)
    #expect(
      entries.all.filter { $0.level == .critical }.map { $0.metadata[DiagnosticLogMetadata.kindKey] } == [
        "SessionKeyMissing"
      ])
    // Another tree, with the same wiring but no such middleware, starts.
    let other = FeaturesService(root: sessionsOnlyTree(), logger: entries.logger(), contexts: validationContexts)
    try await other.validate()
  }

  @Test func nothingIsFoundWhereTheParentCanBranchTheScope() async throws {
    let root = testTree()
    SessionKeyMissing.checkAtStartUp(
      RequestScope.self, from: root, refusal: "throw HTTPError(.unauthorized)",
      at: SourceLocation(fileID: "App/Routes.swift", line: 12))
    try await FeaturesService(root: root, logger: RecordingLogHandler.Entries().logger(), contexts: validationContexts)
      .validate()
  }
}
