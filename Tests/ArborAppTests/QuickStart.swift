// The README's quick start, compiled in a module whose code is main-actor by default: QuickStartTests
// runs it, and checks that it is the README's, line for line.
import Arbor

struct Session: Sendable {
  var user: String
}

/// A kind of branch: each session branch carries its `Session`.
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

extension Printer {
  static func console() -> FeatureLoader {
    .disposable { features in Printer(print: { Swift.print($0) }) }
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
}

func quickStart() throws {
  let root: Features = FeaturesRoot { registry in
    registry.use(Clock(now: { 0 }))
    registry.use(Printer.console())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Greeter.live())
    }
  }

  let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
  let greeter: Greeter = try session.instance()  // loaded once in this branch
  try greeter.greet()  // prints "Hello ann"
}
