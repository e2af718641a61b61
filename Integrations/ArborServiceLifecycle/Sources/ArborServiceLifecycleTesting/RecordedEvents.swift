import Synchronization

/// Events a test records as they happen (a teardown ran, a session closed), in order, with a wait
/// for one that is bounded by a timeout, so a test never decides by sleeping.
///
/// ```swift
/// let teardowns = RecordedEvents()
/// // a loader's teardown: teardowns.append("session \(user)")
/// await teardowns.wait(for: "session ann")
/// #expect(teardowns.all.contains("session ann"))
/// ```
public final class RecordedEvents: Sendable {
  private struct State {
    var events: [String] = []
    var waiters: [(event: String, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())

  /// No events yet.
  public init() {}

  /// The events so far, in the order they were recorded.
  public var all: [String] { state.withLock { $0.events } }

  /// Records `event`, and wakes those waiting for it.
  ///
  /// - Parameter event: What happened.
  public func append(_ event: String) {
    state.withLock { $0.events.append(event) }
    release(event)
  }

  /// Returns once `event` has been recorded, or after `timeout`: the test then checks ``all``, which
  /// fails it when the event never came.
  ///
  /// - Parameters:
  ///   - event: The event to wait for.
  ///   - timeout: How long to wait at most.
  public func wait(for event: String, timeout: Duration = .seconds(60)) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.arrival(of: event) }
      group.addTask { try? await Task.sleep(for: timeout) }
      await group.next()
      // When the timeout won, its waiter is still there: let it go so the group can end.
      release(event)
      group.cancelAll()
    }
  }

  private func arrival(of event: String) async {
    await withCheckedContinuation { continuation in
      let recorded = state.withLock { state in
        if state.events.contains(event) { return true }
        state.waiters.append((event, continuation))
        return false
      }
      if recorded { continuation.resume() }
    }
  }

  private func release(_ event: String) {
    let waiters = state.withLock { state in
      defer { state.waiters.removeAll { $0.event == event } }
      return state.waiters.filter { $0.event == event }.map(\.continuation)
    }
    for waiter in waiters { waiter.resume() }
  }
}
