import Arbor
import ArborIntegrationFixtures
@_spi(Integrations) import ArborServiceLifecycle
import ArborTesting
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

  @Test func aMiddlewareWhoseKeyCanBeNilIsReportedAsItIsMadeWhereTheParentCannotBranchTheScope() {
    withKnownIssue("Expected: the sessions-only tree cannot serve a request without a key") {
      SessionKeyMissing.checkAtStartUp(
        RequestScope.self, from: sessionsOnlyTree(), refusal: "throw HTTPError(.unauthorized)",
        at: SourceLocation(fileID: "App/Routes.swift", line: 12))
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        SessionKeyMissing: a request without a session key cannot branch RequestScope from Root
        ├─ middleware at: App/Routes.swift:12
        ├─ key: the key: closure can return nil, which branches the request from the sessions' parent (Root)
        └─ fix: refuse a request without a key in the key: closure: throw HTTPError(.unauthorized) instead of returning nil,
                or, to serve signed-out requests, define RequestScope where Root can branch it:
                registry.defineScope(RequestScope.self) { ... } in FeaturesRoot
        """
      ]
    }
  }

  @Test func nothingIsReportedWhereTheParentCanBranchTheScope() {
    // Any report would be an issue of this test.
    SessionKeyMissing.checkAtStartUp(
      RequestScope.self, from: testTree(), refusal: "throw HTTPError(.unauthorized)",
      at: SourceLocation(fileID: "App/Routes.swift", line: 12))
  }
}
