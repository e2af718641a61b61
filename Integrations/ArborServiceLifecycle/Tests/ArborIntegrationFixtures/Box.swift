import Synchronization

/// A value shared between a test and the handlers it serves.
public final class Box<Value: Sendable>: Sendable {
  private let storage: Mutex<Value>

  /// A box holding `value`.
  public init(_ value: Value) { storage = Mutex(value) }

  /// The value, read and written under a lock.
  public var value: Value {
    get { storage.withLock { $0 } }
    set { storage.withLock { $0 = newValue } }
  }
}
