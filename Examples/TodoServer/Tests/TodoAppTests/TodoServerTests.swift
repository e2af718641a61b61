import ArborServiceLifecycleTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TodoApp

@Suite struct TodoServerTests {
  static let ann: HTTPFields = [.authorization: "Bearer ann-token", .contentType: "application/json"]
  static let bob: HTTPFields = [.authorization: "Bearer bob-token", .contentType: "application/json"]

  /// The server as `todo-server` builds it, with its todos in memory and its log in `entries`.
  func application(entries: RecordingLogHandler.Entries) -> some ApplicationProtocol {
    todoApplication(TodoConfiguration(databasePath: nil), logger: entries.logger(label: "todo-server", level: .debug))
  }

  func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(buffer: response.body))
  }

  @Test func aSignedInUserAddsListsCompletesAndDeletesTodos() async throws {
    try await application(entries: .init()).test(.router) { client in
      let added = try await client.execute(
        uri: "/api/todos", method: .post, headers: Self.ann, body: ByteBuffer(string: #"{"title":"buy milk"}"#))
      #expect(added.status == .created)
      let todo = try decode(Todo.self, added)
      #expect(todo.title == "buy milk")
      #expect(!todo.done)

      let completed = try await client.execute(uri: "/api/todos/\(todo.id)", method: .patch, headers: Self.ann)
      #expect(try decode(Todo.self, completed).done)

      let listed = try await client.execute(uri: "/api/todos", method: .get, headers: Self.ann)
      #expect(try decode([Todo].self, listed).map(\.title) == ["buy milk"])

      let deleted = try await client.execute(uri: "/api/todos/\(todo.id)", method: .delete, headers: Self.ann)
      #expect(deleted.status == .noContent)
      let missing = try await client.execute(uri: "/api/todos/\(todo.id)", method: .delete, headers: Self.ann)
      #expect(missing.status == .notFound)
    }
  }

  @Test func usersSeeOnlyTheirOwnTodos() async throws {
    try await application(entries: .init()).test(.router) { client in
      _ = try await client.execute(
        uri: "/api/todos", method: .post, headers: Self.ann, body: ByteBuffer(string: #"{"title":"ann's"}"#))
      let bobs = try await client.execute(uri: "/api/todos", method: .get, headers: Self.bob)
      #expect(try decode([Todo].self, bobs).isEmpty)
      let anns = try await client.execute(uri: "/api/todos", method: .get, headers: Self.ann)
      let annTodo = try #require(try decode([Todo].self, anns).first)
      let stolen = try await client.execute(uri: "/api/todos/\(annTodo.id)", method: .patch, headers: Self.bob)
      #expect(stolen.status == .notFound)
    }
  }

  @Test func aRequestWithoutAValidTokenIsRefused() async throws {
    try await application(entries: .init()).test(.router) { client in
      let none = try await client.execute(uri: "/api/todos", method: .get)
      #expect(none.status == .unauthorized)
      let unknown = try await client.execute(
        uri: "/api/todos", method: .get, headers: [.authorization: "Bearer nobody"])
      #expect(unknown.status == .unauthorized)
      let health = try await client.execute(uri: "/health", method: .get)
      #expect(String(buffer: health.body) == "ok")
    }
  }

  @Test func everyLogLineOfARequestCarriesItsIdAndUser() async throws {
    let entries = RecordingLogHandler.Entries()
    try await application(entries: entries).test(.router) { client in
      for title in ["one", "two"] {
        _ = try await client.execute(
          uri: "/api/todos", method: .post, headers: Self.ann, body: ByteBuffer(string: #"{"title":"\#(title)"}"#))
      }
    }
    let requestLines = entries.all.filter { ["todos opened", "added todo"].contains($0.message) }
    #expect(requestLines.count == 4)
    #expect(requestLines.allSatisfy { $0.metadata["user"] == "ann" && $0.metadata["request.id"] != nil })
    let ids = requestLines.compactMap { $0.metadata["request.id"].map { "\($0)" } }
    #expect(Set(ids).count == 2)  // one id per request, the same on each of its lines
  }

  @Test func signingOutClosesTheSessionAndShutdownClosesTheRest() async throws {
    let entries = RecordingLogHandler.Entries()
    try await application(entries: entries).test(.router) { client in
      _ = try await client.execute(uri: "/api/todos", method: .get, headers: Self.ann)
      _ = try await client.execute(uri: "/api/todos", method: .get, headers: Self.bob)
      let signedOut = try await client.execute(uri: "/api/session", method: .delete, headers: Self.ann)
      #expect(signedOut.status == .noContent)
      let closed = entries.all.filter { $0.message == "session closed" }
      #expect(closed.map { $0.metadata["user"] } == ["ann"])
      #expect(closed.first?.metadata["requests"] == "1")  // the sign-out request loaded no Todos
    }
    let messages = entries.all.map(\.message)
    let closed = entries.all.filter { $0.message == "session closed" }.compactMap { $0.metadata["user"] }
    #expect(closed == ["ann", "bob"])
    // Bob's session closed with the root, before the store it depends on.
    let bobClosed = try #require(messages.lastIndex(of: "session closed"))
    let storeClosed = try #require(messages.firstIndex(of: "todo store closed"))
    #expect(bobClosed < storeClosed)
  }
}
