import Arbor

/// Greets the session's user: one instance per session branch.
struct Greeter: CacheableFeature {
  var greet: @Sendable () -> Void

  static var placeholder: Greeter {
    Greeter(greet: unimplemented("Greeter.greet"))
  }
}

extension Greeter {
  /// Greets the user of the session, by the hour of the clock, through the printer.
  static func live() -> FeatureLoader {
    .cacheable { features in
      let session = try features.context(for: SessionScope.self)
      let clock: Clock = try features.instance()
      let printer: Printer = try features.instance()
      return Greeter(greet: {
        let hello = clock.hour() < 12 ? "Good morning" : "Hello"
        printer.print("\(hello), \(session.user)!")
      })
    }
  }
}
