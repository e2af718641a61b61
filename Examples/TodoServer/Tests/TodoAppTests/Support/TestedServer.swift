import ArborServiceLifecycleTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import TodoApp
import TodoVapor
import VaporTesting

/// What a route test sees of a response, whichever server answered.
struct RouteResponse: Sendable {
  var status: Int
  var body: String
}

/// Sends requests to one server under test, as its framework's testing library does.
protocol RouteClient: Sendable {
  /// Sends `method path` with the bearer `token` and the JSON `body`, if any.
  func send(_ method: String, _ path: String, token: String?, body: String?) async throws -> RouteResponse
}

extension RouteClient {
  func send(_ method: String, _ path: String, token: String? = nil) async throws -> RouteResponse {
    try await send(method, path, token: token, body: nil)
  }
}

/// The two servers of the one app: the route tests run against each.
enum TestedServer: String, CaseIterable, Sendable {
  case hummingbird, vapor

  /// Runs `body` with a client of this server (todos in memory, its log in `entries`), then shuts
  /// the server down, which closes the features tree.
  func withClient(
    entries: RecordingLogHandler.Entries, _ body: @escaping @Sendable (any RouteClient) async throws -> Void
  ) async throws {
    let logger = entries.logger(label: "todo-server", level: .debug)
    switch self {
    case .hummingbird:
      try await todoApplication(TodoConfiguration(), logger: logger).test(.router) { client in
        try await body(HummingbirdRouteClient(client: client))
      }
    case .vapor:
      try await withApp { app in
        app.logger = logger
        configureTodoServer(app, TodoConfiguration())
        try await app.asyncBoot()
        try await body(VaporRouteClient(tester: try app.testing()))
      }
    }
  }
}

/// Requests through HummingbirdTesting's router client.
struct HummingbirdRouteClient: RouteClient {
  let client: any TestClientProtocol

  func send(_ method: String, _ path: String, token: String?, body: String?) async throws -> RouteResponse {
    var headers: HTTPFields = [.contentType: "application/json"]
    if let token { headers[.authorization] = "Bearer \(token)" }
    let response = try await client.execute(
      uri: path, method: HTTPRequest.Method(method)!, headers: headers, body: body.map { ByteBuffer(string: $0) })
    return RouteResponse(status: response.status.code, body: String(buffer: response.body))
  }
}

/// Requests through VaporTesting's in-memory tester.
struct VaporRouteClient: RouteClient {
  let tester: any TestingApplicationTester

  func send(_ method: String, _ path: String, token: String?, body: String?) async throws -> RouteResponse {
    var headers: HTTPHeaders = ["Content-Type": "application/json"]
    if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
    let response = try await tester.sendRequest(
      HTTPMethod(rawValue: method), path, headers: headers, body: body.map { ByteBuffer(string: $0) })
    return RouteResponse(status: Int(response.status.code), body: response.body.string)
  }
}
