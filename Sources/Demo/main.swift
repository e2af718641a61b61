// arbor-demo: a root with a static, a disposable and a cacheable feature, two sessions that close
// with one teardown each, a property (the greeting locale) set on one session, and one deliberate
// mistake with its diagnostic. The features and trees are in Sources/DemoFeatures, which the tests
// import too.
import Arbor
import ArborDemoFeatures
import Synchronization

let loads = Atomic<Int>(0)
let root = DemoTree.root(onGreeterLoad: { loads.add(1, ordering: .relaxed) })

print("The printer starts each line with the time of the demo's fixed clock, Clock(now: { 42 }): [t=42.0].\n")

/// Each session is a `withBranch`: closed when its body ends, which runs its guestbook's teardown.
func greetTwoSessions() async throws {
  print("Two sessions branch the same root; each caches its own Greeter, and tears down its Guestbook:")
  for user in ["ann", "bob"] {
    try await root.withBranch(SessionScope.self, context: Session(user: user)) { session in
      let guestbook: Guestbook = try await session.instance()
      for _ in 0..<2 {
        let greeter: Greeter = try await session.instance()
        try greeter.greet()
        guestbook.sign(user)
      }
    }  // the session is closed here: its guestbook's teardown runs
  }
  print("Greeter.live() ran \(loads.load(ordering: .relaxed)) times for 4 requests in 2 sessions.\n")
}
try await greetTwoSessions()

print("Validated before it serves, every scope at once, the tree has no problems; as a Mermaid graph:")
let validation = await root.validate { contexts in contexts.use(Session(user: "check"), for: SessionScope.self) }
try validation.check()
print(validation.graph.mermaid() + "\n")

print("Each session has its own greeting locale: setting it on one session changes no other.")
let localized = DemoTree.localized()
let ann = try localized.branch(SessionScope.self, context: Session(user: "ann"))
let bob = try localized.branch(SessionScope.self, context: Session(user: "bob"))
let annGreeter: Greeter = try ann.instance()  // loaded before the set: it reads the locale as it greets
ann[GreetingLocale.self] = "fr"
try annGreeter.greet()
try bob.instance(of: Greeter.self).greet()
print(ann.which(GreetingLocale.self).summary())
print(bob.which(GreetingLocale.self).summary())
print("")

print("A deliberate mistake: a Greeter that needs a Mailer nobody registered.")
do {
  let session = try DemoTree.broken().branch(SessionScope.self, context: Session(user: "ann"))
  let greeter: Greeter = try session.instance()
  try greeter.greet()
} catch {
  print(String(reflecting: error))
}
try await root.close()  // on shutdown
