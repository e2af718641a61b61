import Arbor

/// Who is using the app: what every session branch carries.
struct Session: Sendable {
  var user: String
}

/// A kind of branch: one per session, with its `Session`.
enum SessionScope: FeaturesScope {
  typealias Context = Session
}
