import Arbor
import ArborIntegrationFixtures
import ArborServiceLifecycleTesting
import ArborVapor
import Synchronization
import Testing
import VaporTesting

@Suite struct FeaturesMiddlewareTests {
  /// An application whose every request gets a branch of `RequestScope` from `root`.
  func configure(_ app: Application, root: Features, entries: RecordingLogHandler.Entries) {
    app.logger = entries.logger()
    app.middleware.use(FeaturesMiddleware(root: root, scope: RequestScope.self) { RequestInfo($0) })
  }

  @Test func aRequestGetsItsBranchAndContext() async throws {
    let entries = RecordingLogHandler.Entries()
    try await withApp { app in
      configure(app, root: testTree(), entries: entries)
      app.get("tag") { req async throws -> String in
        let tag: RequestTag = try await req.features.instance()
        let current = try Features.current()
        // The branch is the handler's current features too, and its context is this request's.
        #expect(try current.context(for: RequestScope.self) == tag.info)
        #expect(tag.info.id == req.id)
        return "\(tag.info.path) \(tag.info.user ?? "-") \(try req.features)"
      }
      let response = try await app.testing().sendRequest(.GET, "/tag", headers: ["x-user": "ann"])
      #expect(response.status == .ok)
      #expect(response.body.string.hasPrefix("/tag ann Root › RequestScope(RequestInfo(id: "))
    }
  }

  @Test func aRouteRunsInTheMiddlewaresTask() async throws {
    // The task the request's branch context was made in, then the one its handler ran in.
    let tasks = RecordedTasks()
    let record = { @Sendable in tasks.record() }
    try await withApp { app in
      app.logger = RecordingLogHandler.Entries().logger()
      // The group's last middleware: its next responder is the route's handler.
      let api = app.grouped(
        FeaturesMiddleware(root: testTree(), scope: RequestScope.self) { req in
          record()
          return RequestInfo(req)
        })
      api.get("task") { req async throws -> String in
        record()
        return "\(try await req.features.instance(of: RequestTag.self).number)"
      }
      let response = try await app.testing().sendRequest(.GET, "/task")
      #expect(response.status == .ok)
    }
    let recorded = tasks.all
    #expect(recorded.count == 2)
    #expect(recorded.first! != nil && recorded.first == recorded.last)
  }

  @Test func theBranchClosesBeforeTheResponseAlsoWhenTheHandlerThrows() async throws {
    let entries = RecordingLogHandler.Entries()
    let teardowns = Teardowns()
    try await withApp { app in
      configure(app, root: testTree(teardowns: teardowns), entries: entries)
      app.get("ok") { req async throws -> String in
        "\(try await req.features.instance(of: RequestTag.self).number)"
      }
      app.get("fails") { req async throws -> String in
        _ = try await req.features.instance(of: RequestTag.self)
        throw Abort(.badRequest, reason: "refused")
      }
      let ok = try await app.testing().sendRequest(.GET, "/ok")
      #expect(ok.status == .ok)
      #expect(teardowns.all == ["request /ok \(ok.body.string)"])
      let failed = try await app.testing().sendRequest(.GET, "/fails")
      #expect(failed.status == .badRequest)
      #expect(failed.body.string.contains("refused"))
      #expect(teardowns.all.count == 2)
      #expect(teardowns.all.last?.hasPrefix("request /fails ") == true)
    }
  }

  @Test func concurrentRequestsNeverShareABranch() async throws {
    let entries = RecordingLogHandler.Entries()
    let count = 8
    let gate = Gate(count: count)
    try await withApp { app in
      configure(app, root: testTree(), entries: entries)
      app.get("tag", ":n") { req async throws -> String in
        let tag: RequestTag = try await req.features.instance()
        // Every request holds its branch open until all of them have one.
        guard await gate.arriveAndWait() else { throw Abort(.requestTimeout) }
        let again: RequestTag = try await req.features.instance()
        #expect(again.number == tag.number)
        return "\(tag.number) \(tag.info.path)"
      }
      let tester = try app.testing()
      let bodies = try await withThrowingTaskGroup(of: String.self) { group in
        for n in 0..<count {
          group.addTask { try await tester.sendRequest(.GET, "/tag/\(n)").body.string }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      let numbers = Set(bodies.map { $0.split(separator: " ")[0] })
      let paths = Set(bodies.map { $0.split(separator: " ")[1] })
      #expect(numbers.count == count)
      #expect(paths == Set((0..<count).map { "/tag/\($0)" }))
    }
  }

  @Test func aRouteWithoutTheMiddlewareGetsTheFix() async throws {
    try await withApp { app in
      app.logger = RecordingLogHandler.Entries().logger()
      app.get("bare") { req async throws -> String in
        do {
          _ = try req.features
          return "unreachable"
        } catch let error as RequestFeaturesUnavailable {
          return error.diagnostic.renderedTree()
        }
      }
      let response = try await app.testing().sendRequest(.GET, "/bare")
      #expect(
        response.body.string == """
          RequestFeaturesUnavailable: no request branch for GET /bare
          ├─ route: GET /bare
          └─ fix: add FeaturesMiddleware to the application (app.middleware.use(FeaturesMiddleware(...)))
                  or to the route's group (app.grouped(FeaturesMiddleware(...))), before the route is added
          """)
    }
  }
}

/// The tasks code ran in, in order: each as its `UnsafeCurrentTask`'s hash, `nil` outside a task.
private final class RecordedTasks: Sendable {
  private let tasks = Mutex<[Int?]>([])

  func record() {
    let current = withUnsafeCurrentTask { $0?.hashValue }
    tasks.withLock { $0.append(current) }
  }

  var all: [Int?] { tasks.withLock { $0 } }
}
