import Arbor

// The tutorial's main.swift, as a function: a test target holds no top-level code.
func runTheApp() throws {
  let root = Greetings.root()
  let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
  let greeter: Greeter = try session.instance()
  greeter.greet()
}
