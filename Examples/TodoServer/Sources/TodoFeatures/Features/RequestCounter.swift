import Synchronization

/// Counts requests, from any thread.
final class RequestCounter: Sendable {
  private let count = Atomic<Int>(0)

  /// Adds one; returns the new count.
  func increment() -> Int { count.add(1, ordering: .relaxed).newValue }

  /// The count.
  var value: Int { count.load(ordering: .relaxed) }
}
