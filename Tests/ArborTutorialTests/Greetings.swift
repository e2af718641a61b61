import Arbor
import Foundation

// The app's entry point, as the tutorial shows it but for `@main`: a test target has its own.
struct Greetings {
  static func main() async {
    do {
      let root = AppTree.root()
      let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
      let greeter: Greeter = try await session.instance()
      greeter.greet()
    } catch {
      // A failure prints its whole diagnostic tree and ends the app with a failing status.
      FileHandle.standardError.write(Data("\(String(reflecting: error))\n".utf8))
      exit(1)
    }
  }
}
