import Arbor

struct Session: Hashable, Sendable {
  let user: String
}

enum SessionScope: FeaturesScope {
  typealias Context = Session
}

enum RequestScope: FeaturesScope {
  typealias Context = Int
}
