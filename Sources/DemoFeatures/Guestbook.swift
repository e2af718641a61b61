import Arbor
import Synchronization

/// Where a session's greetings are signed: one per session branch, closed with its session.
///
/// ```swift
/// let guestbook: Guestbook = try session.instance()
/// guestbook.sign("ann")
/// ```
public struct Guestbook: CacheableFeature {
  /// Adds a signature.
  public var sign: @Sendable (String) -> Void
  /// Closes the book: says how many signed it.
  public var close: @Sendable () async -> Void

  /// A guestbook that signs with `sign` and closes with `close`.
  ///
  /// - Parameters:
  ///   - sign: Adds a signature.
  ///   - close: Closes the book.
  public init(sign: @escaping @Sendable (String) -> Void, close: @escaping @Sendable () async -> Void) {
    self.sign = sign
    self.close = close
  }

  /// Reports a call to either member.
  public static var placeholder: Guestbook {
    Guestbook(sign: unimplemented("Guestbook.sign"), close: unimplemented("Guestbook.close"))
  }
}

extension Guestbook {
  /// A book per session that prints, when its session closes, how many times it was signed.
  ///
  /// - Returns: A loader with a teardown, registered in `defineScope(SessionScope.self)`.
  public static func printed() -> FeatureLoader {
    .cacheable(implementation: "printed()") { features in
      let session = try features.context(for: SessionScope.self)
      let printer: Printer = try features.instance()
      let signatures = Mutex<Int>(0)
      return Guestbook(
        sign: { _ in signatures.withLock { $0 += 1 } },
        close: { printer.print("\(session.user)'s guestbook closed with \(signatures.withLock { $0 }) signatures") })
    } teardown: { guestbook in
      await guestbook.close()
    }
  }
}
