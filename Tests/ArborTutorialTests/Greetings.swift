import Arbor

// The app's entry point, as the tutorial shows it but for `@main`: a test target has its own.
struct Greetings {
  static func main() throws {
    let root = AppTree.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let greeter: Greeter = try session.instance()
    greeter.greet()
  }
}
