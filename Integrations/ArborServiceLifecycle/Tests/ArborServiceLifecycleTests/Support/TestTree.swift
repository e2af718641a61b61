import Arbor
import Synchronization

/// The signed-in user a session branch is about.
struct Session: Sendable, Hashable {
  var user: String
}

/// The scope of session branches.
enum SessionScope: FeaturesScope { typealias Context = Session }

/// What was torn down, in order, and a wait for an entry.
final class Teardowns: Sendable {
  private struct State {
    var entries: [String] = []
    var waiters: [(String, CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())

  /// The teardowns so far.
  var all: [String] { state.withLock { $0.entries } }

  /// Returns once `entry` has been torn down, or after `timeout`: the caller then checks ``all``.
  func wait(for entry: String, timeout: Duration = .seconds(60)) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.arrival(of: entry) }
      group.addTask { try? await Task.sleep(for: timeout) }
      await group.next()
      // When the timeout won, its waiter is still there: let it go so the group can end.
      release(entry)
      group.cancelAll()
    }
  }

  private func arrival(of entry: String) async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state in
        if state.entries.contains(entry) { return true }
        state.waiters.append((entry, continuation))
        return false
      }
      if done { continuation.resume() }
    }
  }

  private func release(_ entry: String) {
    let waiters = state.withLock { state in
      defer { state.waiters.removeAll { $0.0 == entry } }
      return state.waiters.filter { $0.0 == entry }.map(\.1)
    }
    for waiter in waiters { waiter.resume() }
  }

  func append(_ entry: String) {
    state.withLock { $0.entries.append(entry) }
    release(entry)
  }
}

/// One instance for the whole tree, torn down when the root closes.
struct Connection: CacheableFeature {
  var open: Bool
  static var placeholder: Connection { Connection(open: false) }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { _ in
      Connection(open: true)
    } teardown: { _ in
      teardowns.append("root")
    }
  }
}

/// One instance per session branch, torn down as `session <user>`.
struct SessionTag: CacheableFeature {
  var user: String
  static var placeholder: SessionTag { SessionTag(user: "") }

  static func live(teardowns: Teardowns) -> FeatureLoader {
    .cacheable { features in
      SessionTag(user: try features.context(for: SessionScope.self).user)
    } teardown: { tag in
      teardowns.append("session \(tag.user)")
    }
  }
}

/// A feature nobody registers: requesting it is a wiring mistake.
struct Unregistered: CacheableFeature {
  var value: Int
  static var placeholder: Unregistered { Unregistered(value: 0) }
}

/// A session feature whose loader requests a feature nobody registered.
struct Audit: CacheableFeature {
  var value: Int
  static var placeholder: Audit { Audit(value: 0) }

  static func live() -> FeatureLoader {
    .cacheable { features in Audit(value: try features.instance(of: Unregistered.self).value) }
  }
}

/// A connection at the root and a tag per session, each torn down into `teardowns`.
func testTree(teardowns: Teardowns = Teardowns()) -> Features {
  FeaturesRoot { registry in
    registry.use(Connection.live(teardowns: teardowns))
    registry.defineScope(SessionScope.self) { registry in
      registry.use(SessionTag.live(teardowns: teardowns))
    }
  }
}
