import Arbor

/// Sends mail; the demo's broken tree needs it and registers no implementation of it.
///
/// ```swift
/// let mailer: Mailer = try features.instance()
/// try mailer.send("Hello")
/// ```
public struct Mailer: DisposableFeature {
  /// Sends a message; throws when it cannot.
  public var send: @Sendable (String) throws -> Void

  /// A mailer that sends with `send`.
  ///
  /// - Parameter send: Sends a message.
  public init(send: @escaping @Sendable (String) throws -> Void) {
    self.send = send
  }

  /// Reports and throws on a call to `send`.
  public static var placeholder: Mailer { Mailer(send: unimplemented("Mailer.send")) }
}
