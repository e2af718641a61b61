import Arbor
import ArborTesting
import Foundation
import Logging
import Synchronization
import Testing
import TodoApp

@Suite struct TodoTreeTests {
  @Test func theTreeValidates() async throws {
    let root = todoTree(TodoConfiguration(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    let validation = await root.validate { contexts in
      contexts.use(Session(user: "validation"), for: SessionScope.self)
      contexts.use(RequestInfo(id: "validation", method: "GET", path: "/"), for: RequestScope.self)
    }
    #expect(validation.problems.isEmpty)
  }

  @Test func thePortAndTheDatabaseAreReadThroughSwiftConfiguration() throws {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    let configured = todoTree(
      TodoConfiguration.fromEnvironment(["PORT": "9191", "DATABASE": "/tmp/todos.sqlite"]), logger: logger)
    #expect(configured[ServerPort.self] == 9191)
    #expect(configured[DatabasePath.self] == "/tmp/todos.sqlite")
    let defaults = todoTree(TodoConfiguration.fromEnvironment([:]), logger: logger)
    #expect(defaults[ServerPort.self] == 8080)
    #expect(defaults[DatabasePath.self] == nil)
  }

  @Test func todosAreAddedForTheSessionUserAtTheClocksTime() async throws {
    let added = Mutex<[String]>([])
    let features = TestFeatures()
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    features.use(context: RequestInfo(id: "r1", method: "POST", path: "/api/todos"), for: RequestScope.self)
    features.patch(\WallClock.now, with: { Date(timeIntervalSince1970: 42) })
    features.patch(\UserSession.serve, with: { 1 })
    features.patch(
      \TodoStore.add,
      with: { title, owner, date in
        added.withLock { $0.append("\(owner): \(title)") }
        return Todo(id: 1, title: title, done: false, createdAt: date)
      })
    let todos: Todos = try await features.load(Todos.live())
    let todo = try await todos.add("buy milk")
    #expect(todo.createdAt == Date(timeIntervalSince1970: 42))
    #expect(added.withLock { $0 } == ["ann: buy milk"])
  }
}
