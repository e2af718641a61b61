// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "A first unit test".
import ArborDemoFeatures
import ArborTesting
import Synchronization
import Testing

@Suite struct FirstUnitTest {
  @Test func greetsTheSessionUser() throws {
    let printed = Mutex<[String]>([])
    let features = TestFeatures()  // every feature is its placeholder
    features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter: Greeter = try features.load(Greeter.live())  // the loader under test
    try greeter.greet()
    #expect(printed.withLock { $0 } == ["Hello ann"])
  }
}
