import Arbor

/// The app's tree of features.
enum AppTree {
  static func root() -> Features {
    FeaturesRoot { registry in
      registry.use(Clock.system)
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.live())
      }
    }
  }
}
