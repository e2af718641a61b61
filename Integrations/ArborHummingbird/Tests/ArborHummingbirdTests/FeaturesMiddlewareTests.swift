import Arbor
import ArborHummingbird
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@Suite struct FeaturesMiddlewareTests {
  @Test func aRequestGetsItsBranchAndContext() async throws {
    let router = requestRouter(root: testTree())
    router.get("whoami") { request, context -> String in
      let tag: RequestTag = try await context.instance()
      let info = try context.features.context(for: RequestScope.self)
      #expect(tag.info == info)
      #expect(info.id == context.id)
      return "\(info.path) \(info.user ?? "-")"
    }
    try await Application(router: router).test(.router) { client in
      let response = try await client.execute(uri: "/whoami", method: .get, headers: [.init("x-user")!: "ann"])
      #expect(response.status == .ok)
      #expect(String(buffer: response.body) == "/whoami ann")
    }
  }

  @Test func theBranchIsTheTasksCurrentFeatures() async throws {
    let router = requestRouter(root: testTree())
    router.get("current") { request, context -> String in
      let tag: RequestTag = try await Features.current().instance()
      let fromContext: RequestTag = try await context.instance()
      #expect(tag.number == fromContext.number)
      return tag.info.path
    }
    try await Application(router: router).test(.router) { client in
      let response = try await client.execute(uri: "/current", method: .get)
      #expect(String(buffer: response.body) == "/current")
    }
  }

  @Test func aMiddlewareToldNotToSetsNoCurrentFeatures() async throws {
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(
      middleware: FeaturesMiddleware(root: testTree(), scope: RequestScope.self, setsCurrentFeatures: false) {
        request, context in RequestInfo(request: request, context: context)
      })
    router.get("current") { request, context -> String in
      #expect(throws: CurrentFeaturesUndefined.self) { try Features.current() }
      let tag: RequestTag = try await context.instance()
      return tag.info.path
    }
    try await Application(router: router).test(.router) { client in
      let response = try await client.execute(uri: "/current", method: .get)
      #expect(response.status == .ok)
      #expect(String(buffer: response.body) == "/current")
    }
  }

  @Test func withoutCurrentFeaturesSessionRequestsStillLoadSyncAndAsyncAndCloseTheirBranches() async throws {
    let teardowns = Teardowns()
    let loaderSawCurrent = Mutex<[Bool]>([])
    let root = FeaturesRoot { registry in
      registry.use(Counter.live())
      registry.defineScope(SessionScope.self) { registry in registry.use(SessionTag.live(teardowns: teardowns)) }
      registry.defineScope(RequestScope.self) { registry in
        registry.use(RequestTag.live(teardowns: teardowns))
        registry.use(
          .cacheable { features async throws -> AsyncTag in
            // Neither the request nor its loads set current features: the loader has its own.
            loaderSawCurrent.withLock { $0.append((try? Features.current()) != nil) }
            try await Task.sleep(for: .milliseconds(1))
            let tag: RequestTag = try await features.instance()
            return AsyncTag(number: tag.number)
          })
      }
    }
    let sessions = KeyedBranches(SessionScope.self, of: root) { (user: String) in Session(user: user) }
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(
      middleware: FeaturesMiddleware(
        sessions: sessions, scope: RequestScope.self, key: { request, _ in request.headers[.init("x-user")!] },
        setsCurrentFeatures: false
      ) { request, context in RequestInfo(request: request, context: context) })
    router.get("tags") { _, context -> String in
      #expect(throws: CurrentFeaturesUndefined.self) { try Features.current() }
      let session: SessionTag = try await context.instance()
      let loadedAsync: AsyncTag = try await context.instance()
      let request: RequestTag = try await context.instance()
      #expect(loadedAsync.number == request.number)  // the async loader's request, cached in the branch
      return "\(session.number) \(request.number)"
    }
    try await Application(router: router).test(.router) { client in
      var answers: [[String]] = []
      for _ in 0..<2 {
        let response = try await client.execute(uri: "/tags", method: .get, headers: [.init("x-user")!: "ann"])
        #expect(response.status == .ok)
        answers.append(String(buffer: response.body).split(separator: " ").map(String.init))
        // The request's branch is closed by the time its response is out; the session's is kept.
        #expect(teardowns.all.last == "request /tags \(answers.last?.last ?? "")")
      }
      #expect(answers[0][0] == answers[1][0])  // one session branch for both requests
      #expect(answers[0][1] != answers[1][1])  // a branch of its own for each request
    }
    #expect(loaderSawCurrent.withLock { $0 } == [false, false])
    #expect(!teardowns.all.contains("session ann"))
    try await sessions.close()
    #expect(teardowns.all.last == "session ann")
    try await root.close()
  }

  @Test func concurrentRequestsNeverShareABranch() async throws {
    let count = 32
    let arrived = Gate(count: count)
    let router = requestRouter(root: testTree())
    router.get("tag") { request, context -> String in
      // Every request holds its branch until all of them have one: no branch can be reused.
      await arrived.arriveAndWait()
      let tag: RequestTag = try await context.instance()
      let again: RequestTag = try await context.instance()
      #expect(tag.number == again.number)
      return "\(tag.number) \(tag.info.user ?? "-")"
    }
    try await Application(router: router).test(.router) { client in
      let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
        for index in 0..<count {
          group.addTask {
            let user = "user\(index)"
            let response = try await client.execute(uri: "/tag", method: .get, headers: [.init("x-user")!: user])
            return (user, String(buffer: response.body))
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      let numbers = answers.map { $0.1.split(separator: " ")[0] }
      #expect(Set(numbers).count == count)
      for (user, body) in answers {
        #expect(body.hasSuffix(" \(user)"))
      }
    }
  }

  @Test func aRequestIsBranchedUnderTheBranchItsParentPicks() async throws {
    let root = testTree()
    let ann = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let router = Router(context: BasicFeaturesRequestContext.self)
    router.add(
      middleware: FeaturesMiddleware(
        root: root, scope: RequestScope.self,
        parent: { request, _ in
          switch request.headers[.authorization] {
          case "ann": ann
          case nil: nil
          default: throw HTTPError(.unauthorized)
          }
        }
      ) { request, context in RequestInfo(request: request, context: context) })
    router.get("session") { request, context -> String in
      let session: SessionTag = try await context.instance()
      return session.user
    }
    let annTag: SessionTag = try await ann.instance()
    let entries = RecordingLogHandler.Entries()
    try await Application(router: router, logger: entries.logger()).test(.router) { client in
      let response = try await client.execute(uri: "/session", method: .get, headers: [.authorization: "ann"])
      #expect(String(buffer: response.body) == "ann")
      let again = try await client.execute(uri: "/session", method: .get, headers: [.authorization: "ann"])
      #expect(String(buffer: again.body) == "ann")
      let intruder = try await client.execute(uri: "/session", method: .get, headers: [.authorization: "bob"])
      #expect(intruder.status == .unauthorized)
      // Without a session, the request is branched from the root, where no session is on the path.
      let anonymous = try await client.execute(uri: "/session", method: .get)
      #expect(anonymous.status == .internalServerError)
    }
    let logged = entries.all.compactMap { $0.metadata["arbor.diagnostic.kind"] }
    #expect(logged == ["FeatureUndefined"])
    let annTagAfter: SessionTag = try await ann.instance()
    #expect(annTag.number == annTagAfter.number)
    try await ann.close()
  }

  @Test func aRouteWithoutTheMiddlewareSaysHowToFixIt() async throws {
    let router = Router(context: BasicFeaturesRequestContext.self)
    let thrown = Box<RequestFeaturesUnavailable?>(nil)
    let line = #line + 3
    router.get("bare") { request, context -> String in
      do {
        let _: RequestTag = try await context.instance()
        return "resolved"
      } catch let error as RequestFeaturesUnavailable {
        thrown.value = error
        throw HTTPError(.internalServerError)
      }
    }
    try await Application(router: router).test(.router) { client in
      let response = try await client.execute(uri: "/bare", method: .get)
      #expect(response.status == .internalServerError)
    }
    let error = try #require(thrown.value)
    #expect(
      String(reflecting: error) == """
        RequestFeaturesUnavailable: no request branch in BasicFeaturesRequestContext
        ├─ requested at: ArborHummingbirdTests/FeaturesMiddlewareTests.swift:\(line)
        ├─ endpoint: /bare
        └─ fix: add FeaturesMiddleware to the router (router.add(middleware: FeaturesMiddleware(...)))
                or to the route's group, before the route is added
        """)
  }
}

/// Loaded by an async loader, once per request branch.
private struct AsyncTag: CacheableFeature {
  var number: Int
  static var placeholder: AsyncTag { AsyncTag(number: 0) }
}
