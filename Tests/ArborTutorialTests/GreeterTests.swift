import ArborTesting
import Synchronization
import Testing

@Suite struct GreeterTests {
  @Test(arguments: [(9, "Good morning, ann!"), (12, "Hello, ann!")])
  func greetsTheUserByTheHour(hour: Int, greeting: String) throws {
    let printed = Mutex<[String]>([])
    let features = TestFeatures()
    features.use(Clock(hour: { hour }))
    features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
    features.use(context: Session(user: "ann"), for: SessionScope.self)

    let greeter: Greeter = try features.load(Greeter.live())
    greeter.greet()

    #expect(printed.withLock { $0 } == [greeting])
  }
}
