import Arbor

extension Greeter {
  /// Greets the session's user through the ``Printer``, in the session's ``GreetingLocale``:
  /// `Hello ann`, `Bonjour ann`.
  ///
  /// The locale is read at every greeting, through the features the greeter keeps, so a greeter
  /// loaded before its session's locale changed greets in the new one (an instance that read the
  /// locale as it loaded would keep the value it read).
  ///
  /// - Returns: A loader that reads the ``SessionScope`` context, so it is registered in
  ///   `defineScope(SessionScope.self)`.
  public static func localized() -> FeatureLoader {
    .cacheable(implementation: "localized()") { features in
      let session = try features.context(for: SessionScope.self)
      let printer: Printer = try features.instance()
      return Greeter(greet: {
        printer.print("\(GreetingLocale.hello(in: features[GreetingLocale.self])) \(session.user)")
      })
    }
  }
}
