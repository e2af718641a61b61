import Arbor
import Foundation

struct GreetingsApp {
  static func main() async {
    let root = FeaturesRoot { registry in
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.live())
      }
    }
    do {
      try await run(root)
    } catch {
      // A failure prints its whole diagnostic tree and ends the app with a failing status.
      FileHandle.standardError.write(Data("\(String(reflecting: error))\n".utf8))
      exit(1)
    }
  }

  static func run(_ root: Features) async throws {
    try await root.start()  // loads the eager features: a failed start throws here
    try await root.withBranch(SessionScope.self, context: Session(user: "ann")) { session in
      let greeter: Greeter = try await session.instance()
      try greeter.greet()
    }
    try await root.close()  // on shutdown: teardowns, newest first
  }
}
