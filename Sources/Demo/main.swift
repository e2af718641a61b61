// arbor-demo: a root with a static, a disposable and a cacheable feature, two sessions, and one
// deliberate mistake with its diagnostic.
import Arbor
import Synchronization

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

/// A feature nobody registers: the deliberate mistake.
struct Mailer: DisposableFeature {
  var send: @Sendable (String) throws -> Void
  static var placeholder: Mailer { Mailer(send: unimplemented("Mailer.send")) }
}

let loads = Atomic<Int>(0)

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
      loads.add(1, ordering: .relaxed)
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

let root: Features = FeaturesRoot { registry in
  registry.use(Clock(now: { 42 }))
  registry.use(Printer.console())
  registry.defineScope(SessionScope.self) { registry in
    registry.use(Greeter.live())
  }
}

print("Two sessions branch the same root; each caches its own Greeter:")
for user in ["ann", "bob"] {
  let session = try root.branch(SessionScope.self, context: Session(user: user))
  let first: Greeter = try session.instance()
  let second: Greeter = try session.instance()
  try first.greet()
  try second.greet()
}
print("Greeter.live() ran \(loads.load(ordering: .relaxed)) times for 4 requests in 2 sessions.\n")

print("A deliberate mistake: a Greeter that needs a Mailer nobody registered.")
let broken: Features = FeaturesRoot { registry in
  registry.use(Clock(now: { 42 }))
  registry.defineScope(SessionScope.self) { registry in
    registry.use(Greeter.mailing())
  }
}
do {
  let session = try broken.branch(SessionScope.self, context: Session(user: "ann"))
  let greeter: Greeter = try session.instance()
  try greeter.greet()
} catch {
  print(String(reflecting: error))
}
