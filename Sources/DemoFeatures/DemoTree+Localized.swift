import Arbor

extension DemoTree {
  /// The demo's tree with greeters that greet in their session's ``GreetingLocale``, English unless
  /// a session sets another.
  ///
  /// - Returns: The root features.
  public static func localized() -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.use(Printer.console())
      registry.set(GreetingLocale.self, to: "en")
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.localized())
      }
    }
  }
}
