import Arbor
import ArborHummingbird
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct SessionBranchesTests {
  /// A router whose requests are branched below the session of the user their `x-user` header
  /// names, or refused without one.
  func router(sessions: KeyedBranches<String, SessionScope>) -> Router<BasicFeaturesRequestContext> {
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(
      middleware: FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self,
        key: { request, _ in
          guard let user = request.headers[.init("x-user")!] else { throw HTTPError(.unauthorized) }
          return user
        }
      ) { request, context in RequestInfo(request: request, context: context) })
    router.get("session") { request, context -> String in
      let session: SessionTag = try await context.instance()
      let request: RequestTag = try await context.instance()
      return "\(session.user) \(session.number) \(request.number)"
    }
    return router
  }

  func get(_ client: some TestClientProtocol, as user: String) async throws -> [String] {
    let response = try await client.execute(uri: "/session", method: .get, headers: [.init("x-user")!: user])
    return String(buffer: response.body).split(separator: " ").map(String.init)
  }

  @Test func aSessionBranchIsReusedAcrossRequestsOfOneUserAndClosedOnEviction() async throws {
    let teardowns = Teardowns()
    let root = testTree(teardowns: teardowns)
    let sessions = KeyedBranches(SessionScope.self, of: root, maximumCount: 1) { (user: String) in
      Session(user: user)
    }
    try await Application(router: router(sessions: sessions)).test(.router) { client in
      let first = try await get(client, as: "ann")
      let second = try await get(client, as: "ann")
      #expect(first[0] == "ann")
      #expect(first[1] == second[1])  // the same session branch
      #expect(first[2] != second[2])  // a new request branch each time
      #expect(!teardowns.all.contains("session ann"))
      let bob = try await get(client, as: "bob")  // over the maximum: ann's session is evicted
      #expect(bob[0] == "bob")
      #expect(teardowns.all.contains("session ann"))
      let third = try await get(client, as: "ann")
      #expect(third[1] != first[1])  // a new session branch
      let refused = try await client.execute(uri: "/session", method: .get)
      #expect(refused.status == .unauthorized)
    }
    try await sessions.close()
    // Each request branch was closed, and ann's first session after its requests' branches.
    let annClosed = try #require(teardowns.all.firstIndex(of: "session ann"))
    #expect(teardowns.all[..<annClosed].filter { $0.hasPrefix("request") }.count == 2)
  }

  @Test func aRequestWithoutAKeyWhereOnlySessionsBranchRequestsIsLoggedAsAMissingKey() async throws {
    let entries = RecordingLogHandler.Entries()
    let sessions = KeyedBranches(SessionScope.self, of: sessionsOnlyTree()) { (user: String) in Session(user: user) }
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(
      middleware: FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self, key: { request, _ in request.headers[.init("x-user")!] },
        file: "App/Routes.swift", line: 12
      ) { request, context in RequestInfo(request: request, context: context) })
    router.get("session") { request, context -> String in
      try await context.instance(of: SessionTag.self).user
    }
    try await Application(router: router, logger: entries.logger()).test(.router) { client in
      let signedIn = try await client.execute(uri: "/session", method: .get, headers: [.init("x-user")!: "ann"])
      #expect(String(buffer: signedIn.body) == "ann")
      let anonymous = try await client.execute(uri: "/session", method: .get)
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
