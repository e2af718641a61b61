// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "An integration test of a branch".
import ArborDemoFeatures
import ArborTesting
import Synchronization
import Testing

@Suite struct IntegrationTest {
  /// The app's tree, built as the app builds it.
  static let root: Features = FeaturesRoot { registry in
    registry.use(Clock(now: { 42 }))
    registry.use(Printer.console())
    registry.defineScope(SessionScope.self) { registry in
      registry.use(Greeter.live())
    }
  }

  @Test func aSessionGreetsItsUserThroughTheRealTree() throws {
    let printed = Mutex<[String]>([])
    let features = TestFeatures(Self.root)  // a copy: Self.root is never patched
    features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })

    let session = try features.branch(SessionScope.self, context: Session(user: "ann"))
    let greeter: Greeter = try session.instance()  // loaded by Greeter.live(), cached in the branch
    try greeter.greet()

    #expect(printed.withLock { $0 } == ["Hello ann"])
  }
}
