// The code samples of the "Renewing instances" section of Sources/Core/Arbor.docc/Lifecycle.md,
// compiled and run by the test suite (its time-to-live samples, which use ArborTesting's clock,
// are in Tests/ArborTestingTests/Docs/RenewalTest.swift). Every ```swift block of that guide must
// appear verbatim in this file, LifecycleSamples.swift or Tests/ArborTestingTests/Docs
// (DocsSamplesTests checks it).
import Arbor
import Synchronization
import Testing

// sample: sign-out renews a session's client
struct SessionToken: CacheableFeature {
  var value: String?
  static var placeholder: SessionToken { SessionToken(value: nil) }
}

struct APIClient: CacheableFeature {
  var authorization: @Sendable () -> String
  var cancelAll: @Sendable () async -> Void
  static var placeholder: APIClient {
    APIClient(authorization: unimplemented("APIClient.authorization", placeholder: ""), cancelAll: {})
  }
}

enum ScreenScope: FeaturesScope { typealias Context = String }

extension SessionToken {
  static func stored() -> FeatureLoader {
    .cacheable { _ in SessionToken(value: Keychain.token()) }
  }
}

extension APIClient {
  static func live() -> FeatureLoader {
    .cacheable { features in
      let token: SessionToken = try features.instance()
      return APIClient(
        authorization: { token.value.map { "Bearer \($0)" } ?? "anonymous" },
        cancelAll: { Keychain.log("cancelled requests of \(token.value ?? "anonymous")") })
    } teardown: { client in
      await client.cancelAll()
    }
  }
}

func signOut(of app: Features) async throws {
  Keychain.delete()
  // The token, and every client built with it in any screen, are torn down and forgotten: the next
  // request loads them anew, signed out.
  for renewed in try await app.refresh(SessionToken.self) {
    Keychain.log("renewed \(renewed)")
  }
}
// end

/// A stand-in for the keychain: the signed-in user's token, and a log for the test to read.
enum Keychain {
  static let stored = Mutex<String?>("abc")
  static let events = Mutex<[String]>([])

  static func token() -> String? { stored.withLock { $0 } }

  static func delete() { stored.withLock { $0 = nil } }

  static func log(_ event: String) { events.withLock { $0.append(event) } }
}

@Suite(.serialized) struct RenewalSamplesTests {
  @Test func signingOutRenewsTheTokenAndTheClientOfEveryScreen() async throws {
    Keychain.stored.withLock { $0 = "abc" }
    Keychain.events.withLock { $0 = [] }
    let app = FeaturesRoot { registry in
      registry.use(SessionToken.stored())
      registry.defineScope(ScreenScope.self) { registry in
        registry.use(APIClient.live())
      }
    }
    let inbox = try app.branch(ScreenScope.self, context: "inbox")
    #expect(try await inbox.instance(of: APIClient.self).authorization() == "Bearer abc")
    try await signOut(of: app)
    #expect(try await inbox.instance(of: APIClient.self).authorization() == "anonymous")
    #expect(
      Keychain.events.withLock { $0 } == [
        "cancelled requests of abc",
        "renewed APIClient (APIClient.live()) in Root › ScreenScope(inbox)",
        "renewed SessionToken (SessionToken.stored()) in Root",
      ])
    try await app.close()
  }
}
