// The demo's features (Sources/Demo/main.swift), copied as fixtures: the demo is an executable
// target, which a test target cannot import. Only the load counter is left out (global state).
import ArborTesting

struct Session: Sendable, CustomStringConvertible {
  var user: String
  var description: String { "Session(user: \"\(user)\")" }
}

enum SessionScope: FeaturesScope { typealias Context = Session }

/// One value for the whole tree.
struct Clock: StaticFeature {
  var now: @Sendable () -> Double
  static var placeholder: Clock { Clock(now: unimplemented("Clock.now", placeholder: 0)) }
}

/// A new instance for every request.
struct Printer: DisposableFeature {
  var print: @Sendable (String) -> Void
  static var placeholder: Printer { Printer(print: unimplemented("Printer.print")) }
}

/// One instance per session branch.
struct Greeter: CacheableFeature {
  var greet: @Sendable () throws -> Void
  static var placeholder: Greeter { Greeter(greet: unimplemented("Greeter.greet")) }
}

/// A feature the demo's broken tree does not register.
struct Mailer: DisposableFeature {
  var send: @Sendable (String) throws -> Void
  static var placeholder: Mailer { Mailer(send: unimplemented("Mailer.send")) }
}

extension Printer {
  static func console() -> FeatureLoader {
    .disposable { features in
      let clock: Clock = try features.instance()
      return Printer(print: { line in Swift.print("  [t=\(clock.now())] \(line)") })
    }
  }
}

extension Greeter {
  static func live() -> FeatureLoader {
    .cacheable { features in
      let session = try features.context(for: SessionScope.self)
      let printer: Printer = try features.instance()
      return Greeter(greet: { printer.print("Hello \(session.user)") })
    }
  }

  static func mailing() -> FeatureLoader {
    .cacheable { features in
      let mailer: Mailer = try features.instance()
      return Greeter(greet: { try mailer.send("Hello") })
    }
  }
}

/// The demo's tree.
func demoRoot() -> Features {
  FeaturesRoot { registry in
    registry.use(Clock(now: { 42 }))
    registry.use(Printer.console())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Greeter.live())
    }
  }
}
