import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import ArborVapor
import Testing
import VaporTesting

@Suite struct SessionBranchesTests {
  /// Request branches below the caller's session, whose key is the `x-user` header.
  func configure(_ app: Application, sessions: KeyedBranches<String, SessionScope>) {
    app.logger = RecordingLogHandler.Entries().logger()
    let api = app.grouped(
      FeaturesMiddleware(sessions: sessions, scope: RequestScope.self, key: { $0.headers.first(name: "x-user") }) {
        RequestInfo($0)
      })
    api.get("session") { req async throws -> String in
      let session: SessionTag = try await req.features.instance()
      let request: RequestTag = try await req.features.instance()
      return "\(session.user) \(session.number) \(request.number)"
    }
  }

  @Test func aSessionBranchIsReusedThenClosedOnEviction() async throws {
    let teardowns = Teardowns()
    let sessions = KeyedBranches(SessionScope.self, of: testTree(teardowns: teardowns)) { (user: String) in
      Session(user: user)
    }
    try await withApp { app in
      configure(app, sessions: sessions)
      let tester = try app.testing()
      let first = try await tester.sendRequest(.GET, "/session", headers: ["x-user": "ann"]).body.string
      let second = try await tester.sendRequest(.GET, "/session", headers: ["x-user": "ann"]).body.string
      let bob = try await tester.sendRequest(.GET, "/session", headers: ["x-user": "bob"]).body.string
      // ann's session tag is loaded once, in one session branch; each request has its own branch.
      #expect(first.split(separator: " ")[0...1] == second.split(separator: " ")[0...1])
      #expect(first.split(separator: " ")[2] != second.split(separator: " ")[2])
      #expect(bob.hasPrefix("bob "))
      #expect(!teardowns.all.contains("session ann"))
      try await sessions.evict("ann")
      #expect(teardowns.all.last == "session ann")
      let third = try await tester.sendRequest(.GET, "/session", headers: ["x-user": "ann"]).body.string
      #expect(third.split(separator: " ")[1] != first.split(separator: " ")[1])
    }
    try await sessions.close()
  }

  @Test func anIdleSessionIsClosedByTheEvictionServiceWithoutARequest() async throws {
    let teardowns = Teardowns()
    let root = testTree(teardowns: teardowns)
    let sessions = KeyedBranches(SessionScope.self, of: root, idleTime: .milliseconds(20)) { (user: String) in
      Session(user: user)
    }
    try await withApp { app in
      configure(app, sessions: sessions)
      app.lifecycle.use(ServiceLifecycleHandler(IdleBranchesEviction(sessions, every: .milliseconds(10))))
      try await app.asyncBoot()
      let response = try await app.testing().sendRequest(.GET, "/session", headers: ["x-user": "ann"])
      #expect(response.body.string.hasPrefix("ann "))
      // No other request comes: the service closes the idle session.
      await teardowns.wait(for: "session ann")
      #expect(teardowns.all.contains("session ann"))
      #expect(sessions.count == 0)
    }
    try await root.close()
  }

  @Test func aRequestWithoutAKeyWhereOnlySessionsBranchRequestsIsLoggedAsAMissingKey() async throws {
    let entries = RecordingLogHandler.Entries()
    let sessions = KeyedBranches(SessionScope.self, of: sessionsOnlyTree()) { (user: String) in Session(user: user) }
    try await withApp { app in
      app.logger = entries.logger()
      let api = app.grouped(
        FeaturesMiddleware(
          sessions: sessions, scope: RequestScope.self, key: { $0.headers.first(name: "x-user") },
          file: "App/Routes.swift", line: 12
        ) { RequestInfo($0) })
      api.get("session") { req async throws -> String in
        try await req.features.instance(of: SessionTag.self).user
      }
      let signedIn = try await app.testing().sendRequest(.GET, "/session", headers: ["x-user": "ann"])
      #expect(signedIn.body.string == "ann")
      let anonymous = try await app.testing().sendRequest(.GET, "/session")
      #expect(anonymous.status == .internalServerError)
    }
    try await sessions.close()
    let logged = entries.all.filter { $0.metadata[DiagnosticLogMetadata.kindKey] != nil }
    #expect(logged.map { $0.metadata[DiagnosticLogMetadata.kindKey] } == ["SessionKeyMissing"])
    #expect(
      logged.first?.message
        == "SessionKeyMissing: a request without a session key cannot branch RequestScope from Root"
        + " ← FeaturesScopeUndefined: RequestScope is not defined in Root (App/Routes.swift:12)")
  }
}
