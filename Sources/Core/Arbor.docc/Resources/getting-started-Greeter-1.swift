import Arbor

/// Greets the session's user: one instance per session branch.
struct Greeter: CacheableFeature {
  var greet: @Sendable () -> Void

  static var placeholder: Greeter {
    Greeter(greet: unimplemented("Greeter.greet"))
  }
}
