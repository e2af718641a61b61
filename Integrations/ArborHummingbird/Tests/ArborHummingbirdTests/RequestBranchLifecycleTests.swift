import Arbor
import ArborHummingbird
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite struct RequestBranchLifecycleTests {
  struct Refused: Error {}

  /// A router whose requests get a branch of `RequestScope` from `root`, with routes that resolve
  /// the request's tag and then answer, throw, or keep the branch.
  func router(root: Features, kept: Box<Features?> = Box(nil)) -> Router<BasicFeaturesRequestContext> {
    let router = requestRouter(root: root)
    router.get("ok") { request, context -> String in
      let tag: RequestTag = try await context.instance()
      kept.value = try context.features
      return "\(tag.number)"
    }
    router.get("throws") { request, context -> String in
      let _: RequestTag = try await context.instance()
      throw HTTPError(.badRequest)
    }
    router.get("fails") { request, context -> String in
      let _: RequestTag = try await context.instance()
      throw Refused()
    }
    return router
  }

  @Test func theBranchIsClosedAfterTheResponse() async throws {
    let teardowns = Teardowns()
    let kept = Box<Features?>(nil)
    try await Application(router: router(root: testTree(teardowns: teardowns), kept: kept)).test(.router) { client in
      let response = try await client.execute(uri: "/ok", method: .get)
      #expect(response.status == .ok)
      #expect(teardowns.all == ["request /ok \(String(buffer: response.body))"])
    }
    let branch = try #require(kept.value)
    #expect(throws: FeaturesClosed.self) { try branch.context(for: RequestScope.self) }
  }

  @Test func theBranchIsClosedWhenTheHandlerThrows() async throws {
    let teardowns = Teardowns()
    try await Application(router: router(root: testTree(teardowns: teardowns))).test(.router) { client in
      let badRequest = try await client.execute(uri: "/throws", method: .get)
      #expect(badRequest.status == .badRequest)
      let failed = try await client.execute(uri: "/fails", method: .get)
      #expect(failed.status == .internalServerError)
    }
    #expect(teardowns.all.count == 2)
    #expect(teardowns.all.first?.hasPrefix("request /throws ") == true)
    #expect(teardowns.all.last?.hasPrefix("request /fails ") == true)
  }

  @Test func everyConcurrentRequestClosesItsOwnBranchOnce() async throws {
    let teardowns = Teardowns()
    let count = 32
    try await Application(router: router(root: testTree(teardowns: teardowns))).test(.router) { client in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<count {
          group.addTask { _ = try await client.execute(uri: "/ok", method: .get) }
        }
        try await group.waitForAll()
      }
    }
    #expect(teardowns.all.count == count)
    #expect(Set(teardowns.all).count == count)
  }

  @Test func aTeardownThatFailsIsA500AndALogEntry() async throws {
    struct Transaction: CacheableFeature {
      static var placeholder: Transaction { Transaction() }
    }
    let root = FeaturesRoot { registry in
      registry.defineScope(RequestScope.self) { registry in
        registry.use(
          .cacheable { _ in
            Transaction()
          } teardown: { _ in
            throw Refused()
          })
      }
    }
    let router = requestRouter(root: root)
    router.get("commit") { request, context -> String in
      let _: Transaction = try await context.instance()
      return "committed"
    }
    let entries = RecordingLogHandler.Entries()
    try await Application(router: router, logger: entries.logger()).test(.router) { client in
      let response = try await client.execute(uri: "/commit", method: .get)
      #expect(response.status == .internalServerError)
    }
    let entry = try #require(entries.all.first { $0.metadata["arbor.diagnostic.kind"] != nil })
    #expect(entry.metadata["arbor.diagnostic.kind"] == "TeardownFailed")
  }
}
