import ArborServiceLifecycleTesting
import Foundation
import Testing
import TodoApp

/// The routes of the todo server, the same tests against the Hummingbird server and the Vapor one:
/// the app's features do not depend on the framework that serves them.
@Suite struct TodoServerTests {
  func decode<T: Decodable>(_ type: T.Type, _ response: RouteResponse) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(response.body.utf8))
  }

  @Test(arguments: TestedServer.allCases)
  func aSignedInUserAddsListsCompletesAndDeletesTodos(server: TestedServer) async throws {
    try await server.withClient(entries: .init()) { client in
      let added = try await client.send("POST", "/api/todos", token: "ann-token", body: #"{"title":"buy milk"}"#)
      #expect(added.status == 201)
      let todo = try decode(Todo.self, added)
      #expect(todo.title == "buy milk")
      #expect(!todo.done)

      let completed = try await client.send("PATCH", "/api/todos/\(todo.id)", token: "ann-token")
      #expect(try decode(Todo.self, completed).done)

      let listed = try await client.send("GET", "/api/todos", token: "ann-token")
      #expect(try decode([Todo].self, listed).map(\.title) == ["buy milk"])

      let deleted = try await client.send("DELETE", "/api/todos/\(todo.id)", token: "ann-token")
      #expect(deleted.status == 204)
      let missing = try await client.send("DELETE", "/api/todos/\(todo.id)", token: "ann-token")
      #expect(missing.status == 404)
    }
  }

  @Test(arguments: TestedServer.allCases)
  func usersSeeOnlyTheirOwnTodos(server: TestedServer) async throws {
    try await server.withClient(entries: .init()) { client in
      _ = try await client.send("POST", "/api/todos", token: "ann-token", body: #"{"title":"ann's"}"#)
      let bobs = try await client.send("GET", "/api/todos", token: "bob-token")
      #expect(try decode([Todo].self, bobs).isEmpty)
      let anns = try await client.send("GET", "/api/todos", token: "ann-token")
      let annTodo = try #require(try decode([Todo].self, anns).first)
      let stolen = try await client.send("PATCH", "/api/todos/\(annTodo.id)", token: "bob-token")
      #expect(stolen.status == 404)
    }
  }

  @Test(arguments: TestedServer.allCases)
  func aRequestWithoutAValidTokenIsRefused(server: TestedServer) async throws {
    try await server.withClient(entries: .init()) { client in
      let none = try await client.send("GET", "/api/todos")
      #expect(none.status == 401)
      let unknown = try await client.send("GET", "/api/todos", token: "nobody")
      #expect(unknown.status == 401)
      let health = try await client.send("GET", "/health")
      #expect(health.body == "ok")
    }
  }

  @Test(arguments: TestedServer.allCases)
  func everyLogLineOfARequestCarriesItsIdAndUser(server: TestedServer) async throws {
    let entries = RecordingLogHandler.Entries()
    try await server.withClient(entries: entries) { client in
      for title in ["one", "two"] {
        _ = try await client.send("POST", "/api/todos", token: "ann-token", body: #"{"title":"\#(title)"}"#)
      }
    }
    let requestLines = entries.all.filter { ["todos opened", "added todo"].contains($0.message) }
    #expect(requestLines.count == 4)
    #expect(requestLines.allSatisfy { $0.metadata["user"] == "ann" && $0.metadata["request.id"] != nil })
    let ids = requestLines.compactMap { $0.metadata["request.id"].map { "\($0)" } }
    #expect(Set(ids).count == 2)  // one id per request, the same on each of its lines
  }

  @Test(arguments: TestedServer.allCases)
  func signingOutClosesTheSessionAndShutdownClosesTheRest(server: TestedServer) async throws {
    let entries = RecordingLogHandler.Entries()
    try await server.withClient(entries: entries) { client in
      _ = try await client.send("GET", "/api/todos", token: "ann-token")
      _ = try await client.send("GET", "/api/todos", token: "bob-token")
      let signedOut = try await client.send("DELETE", "/api/session", token: "ann-token")
      #expect(signedOut.status == 204)
      // Validation's session, which logs with the tree's own logger at start-up, is not a user's.
      let closed = entries.all.filter { $0.message == "session closed" && $0.metadata["user"] != "validation" }
      #expect(closed.map { $0.metadata["user"] } == ["ann"])
      #expect(closed.first?.metadata["requests"] == "1")  // the sign-out request loaded no Todos
    }
    let messages = entries.all.map(\.message)
    let closed = entries.all.filter { $0.message == "session closed" }.compactMap { $0.metadata["user"] }
      .filter { $0 != "validation" }
    #expect(closed == ["ann", "bob"])
    // Bob's session closed with the root, before the store it depends on (validation, which runs
    // the store's loader and teardown with the tree's own logger, closed one store at start-up).
    let bobClosed = try #require(messages.lastIndex(of: "session closed"))
    let storeClosed = try #require(messages.lastIndex(of: "todo store closed"))
    #expect(bobClosed < storeClosed)
  }
}
