import ArborIntegrationFixtures
import Vapor

extension RequestInfo {
  /// The request's info as the middleware builds it in these tests.
  init(_ request: Request) {
    self.init(id: request.id, path: request.url.path, user: request.headers.first(name: "x-user"))
  }
}
