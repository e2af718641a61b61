import Arbor

/// Greets the signed-in user: one instance per session branch.
///
/// ```swift
/// let greeter: Greeter = try session.instance()
/// try greeter.greet()
/// ```
public struct Greeter: CacheableFeature {
  /// Greets; throws when what it greets through fails.
  public var greet: @Sendable () throws -> Void

  /// A greeter that greets with `greet`.
  ///
  /// - Parameter greet: Greets.
  public init(greet: @escaping @Sendable () throws -> Void) {
    self.greet = greet
  }

  /// Reports and throws on a call to `greet`.
  public static var placeholder: Greeter { Greeter(greet: unimplemented("Greeter.greet")) }
}

extension Greeter {
  /// Greets the session's user through the ``Printer``: `Hello ann`.
  ///
  /// - Parameter onLoad: Called each time the loader runs; the demo counts loads with it.
  /// - Returns: A loader that reads the ``SessionScope`` context, so it is registered in
  ///   `defineScope(SessionScope.self)`.
  public static func live(onLoad: @escaping @Sendable () -> Void = {}) -> FeatureLoader {
    .cacheable(implementation: "live()") { features in
      onLoad()
      let session = try features.context(for: SessionScope.self)
      let printer: Printer = try features.instance()
      return Greeter(greet: { printer.print("Hello \(session.user)") })
    }
  }

  /// Greets by mail: `Hello`, sent through the ``Mailer``.
  ///
  /// - Returns: A loader that resolves the ``Mailer`` once, when it loads.
  public static func mailing() -> FeatureLoader {
    .cacheable { features in
      let mailer: Mailer = try features.instance()
      return Greeter(greet: { try mailer.send("Hello") })
    }
  }
}
